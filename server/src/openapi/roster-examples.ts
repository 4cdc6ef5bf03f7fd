import { emptyRosterSummary, type RosterImport } from '@tms/contract';
import { type Examples, GREEN_VALLEY, ok } from './examples.js';

/*
 * The examples of the roster import routes (issue 15), in the story of examples.ts: at the start
 * of the school year Ada Head imports Green Valley's roster from its student information system,
 * first as a dry run, then for real; the whole school (2,150 rows) goes in the background.
 */

// UUIDv7s whose timestamps match the createdAt next to them.
const DRY_RUN = '0199042e-fc6c-78ab-a59d-301f20fa7bdb';
const APPLIED = '01990439-e05e-77dc-9033-003099620a61';
const WHOLE_SCHOOL = '0199043b-28e0-789d-8238-2e26595726e1';

/** The CSV a school sends: docs/examples/roster.csv, shortened. */
export const ROSTER_CSV_EXAMPLE = [
  'email,role,givenName,familyName,startsAt,endsAt',
  'maria.keller@greenvalley.example,TEACHER,Maria,Keller,2025-08-25,2026-07-31',
  'anna.lindqvist@greenvalley.example,aide,Anna,Lindqvist,2025-09-01,2026-06-30',
  'jerome.lefevre@greenvalley.example,student,Jérôme,Lefèvre,2025-09-01,2026-07-10',
  'liam.obrien@greenvalley.example,student,Liam,"O\'Brien, Jr.",2025-09-01,',
  '',
].join('\n');

/** The request body's media types besides JSON, by operationId (the contract types only JSON bodies). */
export const ROSTER_REQUEST_MEDIA: Record<string, Record<string, Record<string, unknown>>> = {
  createRosterImport: {
    'text/csv': {
      schema: {
        type: 'string',
        description:
          'UTF-8 (with or without BOM), comma or semicolon, a header row first; at most 50,000 rows and 10 MiB. ' +
          'Columns: email (required), role, givenName, familyName, startsAt, endsAt, userId (docs/rosters.md).',
      },
      example: ROSTER_CSV_EXAMPLE,
    },
  },
};

export const ROSTER_REQUEST_EXAMPLES = {
  createRosterImport: {
    rows: {
      summary: 'The same rows as JSON: rows[i] is row i + 2 in errors',
      value: {
        rows: [
          {
            email: 'maria.keller@greenvalley.example',
            role: 'TEACHER',
            givenName: 'Maria',
            familyName: 'Keller',
          },
          { email: 'anna.lindqvist@greenvalley.example', role: 'aide', startsAt: '2025-09-01', endsAt: null },
        ],
      },
    },
  },
};

const zero = emptyRosterSummary();

const dryRun: RosterImport = {
  importId: DRY_RUN,
  tenantId: GREEN_VALLEY,
  mode: 'sync',
  dryRun: true,
  status: 'SUCCEEDED',
  progress: { rowsRead: 12, rowsTotal: 12 },
  summary: {
    create: 9,
    updateRole: 1,
    updateTerm: 0,
    remove: 1,
    unchanged: 0,
    invalid: 1,
    guardianInvitations: 4,
  },
  errors: [
    {
      row: 8,
      column: 'role',
      code: 'INVALID_ROLE',
      message: 'role must be one of OWNER, ADMIN, TEACHER, STUDENT, administrator, teacher, student, aide',
    },
  ],
  warnings: [
    { row: 1, column: 'homeroom', code: 'UNKNOWN_COLUMN', message: 'homeroom is not a column: ignored' },
  ],
  failure: {
    code: 'ROSTER_INVALID',
    message: `The roster has 1 invalid row; nothing was applied (import ${DRY_RUN} lists them)`,
  },
  createdAt: '2025-09-01T07:30:12.204Z',
  finishedAt: '2025-09-01T07:30:12.391Z',
};

const applied: RosterImport = {
  ...dryRun,
  importId: APPLIED,
  dryRun: false,
  summary: { ...dryRun.summary, create: 10, invalid: 0 },
  errors: [],
  failure: null,
  createdAt: '2025-09-01T07:42:05.918Z',
  finishedAt: '2025-09-01T07:42:06.120Z',
};

const queued: RosterImport = {
  importId: WHOLE_SCHOOL,
  tenantId: GREEN_VALLEY,
  mode: 'add',
  dryRun: false,
  status: 'QUEUED',
  progress: { rowsRead: 0, rowsTotal: 2150 },
  summary: zero,
  errors: [],
  warnings: [],
  failure: null,
  createdAt: '2025-09-01T07:43:30.016Z',
  finishedAt: null,
};

const running: RosterImport = { ...queued, status: 'RUNNING', progress: { rowsRead: 2150, rowsTotal: 2150 } };
const succeeded: RosterImport = {
  ...running,
  status: 'SUCCEEDED',
  summary: { ...zero, create: 2138, unchanged: 12 },
  finishedAt: '2025-09-01T07:43:31.402Z',
};

const one = <T>(summary: string, value: T) => ({ summary, value: ok(value) });

export const ROSTER_RESPONSE_EXAMPLES: Record<string, Record<number, Examples<unknown>>> = {
  createRosterImport: {
    200: {
      applied: one('Applied in the request (at most 1,000 rows)', applied),
      dryRun: one('A dry run: what applying would do, and why it would be refused', dryRun),
    },
    202: { queued: one('A larger file: queued; poll the Location', queued) },
  },
  getRosterImport: {
    200: {
      running: one(
        'Running in the background: the rows are read and checked, the changes are being made',
        running,
      ),
      succeeded: one('Done', succeeded),
    },
  },
};
