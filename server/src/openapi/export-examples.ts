import { ROSTER_EXPORT_COLUMNS } from '@tms/contract';
import type { ExportRecord } from '../modules/rosters/membership-export.service.js';
import type { Example } from './examples.js';
import { ADA, ALAN, adaOwner, alanStudent, GRACE, graceAdmin } from './examples.js';

/*
 * The examples of the membership export (GET /tenants/{tenantId}/memberships/export), in the story
 * of examples.ts and roster-examples.ts: in mid-September Ada Head exports Green Valley's members,
 * the roster imported on 1 September among them. The same members in both formats; a test
 * (test/tools/openapi-validation.test.ts) checks that the CSV is what the service writes
 * for the records of the NDJSON, and that a live export has the same form.
 *
 * The export is a file, not an envelope, in one of two media types the `format` query chooses;
 * ts-rest's `c.otherResponse` declares one content type, and ts-rest/open-api writes no content for
 * it, so the document builder adds both from here (EXPORT_RESPONSE_MEDIA).
 */

/** The export's records, in creation order (their ids are UUIDv7s), as the service makes them. */
export const EXPORT_RECORDS: ExportRecord[] = [
  {
    email: ADA.email,
    role: 'OWNER',
    givenName: 'Ada',
    familyName: 'Head',
    startsAt: null,
    endsAt: null,
    userId: ADA.userId,
    tenantMembershipId: adaOwner.tenantMembershipId,
    status: 'ACTIVE',
  },
  {
    email: GRACE.email,
    role: graceAdmin.role,
    givenName: 'Grace',
    familyName: 'Hopper',
    startsAt: null,
    endsAt: null,
    userId: GRACE.userId,
    tenantMembershipId: graceAdmin.tenantMembershipId,
    status: 'ACTIVE',
  },
  // No name yet (neither his own nor one the tenant gave): empty cells, nulls.
  {
    email: ALAN.email,
    role: 'STUDENT',
    givenName: null,
    familyName: null,
    startsAt: null,
    endsAt: null,
    userId: ALAN.userId,
    tenantMembershipId: alanStudent.tenantMembershipId,
    status: 'ACTIVE',
  },
  // The rows of roster-examples.ts's ROSTER_CSV_EXAMPLE, imported on 1 September.
  {
    email: 'maria.keller@greenvalley.example',
    role: 'TEACHER',
    givenName: 'Maria',
    familyName: 'Keller',
    startsAt: '2025-08-25T00:00:00.000Z',
    endsAt: '2026-07-31T00:00:00.000Z',
    userId: '01990439-e0cf-7bb6-a138-b5e45cb53433',
    tenantMembershipId: '01990439-e0d1-7bdf-bc5b-04a3275f5eed',
    status: 'ACTIVE',
  },
  {
    email: 'jerome.lefevre@greenvalley.example',
    role: 'STUDENT',
    givenName: 'Jérôme',
    familyName: 'Lefèvre',
    startsAt: '2025-09-01T00:00:00.000Z',
    endsAt: '2026-07-10T00:00:00.000Z',
    userId: '01990439-e0d8-7b9e-8e3d-6209b28842ea',
    tenantMembershipId: '01990439-e0da-7aca-bccf-49d5f181636f',
    status: 'ACTIVE',
  },
  // A comma in a cell: quoted in the CSV.
  {
    email: 'liam.obrien@greenvalley.example',
    role: 'STUDENT',
    givenName: 'Liam',
    familyName: "O'Brien, Jr.",
    startsAt: '2025-09-01T00:00:00.000Z',
    endsAt: null,
    userId: '01990439-e0df-7653-a908-07f6bf80947c',
    tenantMembershipId: '01990439-e0e1-78a1-a24a-f2ec232addff',
    status: 'ACTIVE',
  },
  // A name of their own that a spreadsheet would run as a formula: `'` before it in the CSV (and
  // quoted, for its quotes), as it is in the NDJSON.
  {
    email: 'lee.wong@greenvalley.example',
    role: 'STUDENT',
    givenName: '=HYPERLINK("https://evil.example","Lee")',
    familyName: null,
    startsAt: null,
    endsAt: null,
    userId: '01990fbc-95a1-751c-9ef3-dec7f99566bb',
    tenantMembershipId: '01990fbc-95a4-7918-964d-65eb1c0bfa00',
    status: 'ACTIVE',
  },
  // Added by id, a user without an email address (the userId names them), then suspended.
  {
    email: null,
    role: 'STUDENT',
    givenName: null,
    familyName: null,
    startsAt: null,
    endsAt: null,
    userId: '01992899-8c34-727f-b296-de43dec00f13',
    tenantMembershipId: '01992899-8c37-7170-818a-2f39567f5029',
    status: 'SUSPENDED',
  },
  // From next term: SCHEDULED until startsAt.
  {
    email: 'noor.haddad@greenvalley.example',
    role: 'TEACHER',
    givenName: 'Noor',
    familyName: 'Haddad',
    startsAt: '2026-01-05T00:00:00.000Z',
    endsAt: '2026-07-31T00:00:00.000Z',
    userId: '01993427-2eef-768e-9c90-165defa56fd2',
    tenantMembershipId: '01993427-2ef3-7c8c-b33b-93880609005e',
    status: 'SCHEDULED',
  },
];

/** The CSV the service writes for EXPORT_RECORDS: a byte order mark, the header, a line each. */
export const EXPORT_CSV_EXAMPLE = [
  '\uFEFFemail,role,givenName,familyName,startsAt,endsAt,userId,tenantMembershipId,status',
  'head@greenvalley.example,OWNER,Ada,Head,,,0194849a-770e-7197-8742-b5eaa607bcfb,01955b12-0537-7391-8ba2-a48c71bf41a8,ACTIVE',
  'grace@greenvalley.example,ADMIN,Grace,Hopper,,,0195609b-8d6d-765b-8440-46f6e8ab8b94,0195609b-8d70-796c-9954-6a8639bab893,ACTIVE',
  'alan@greenvalley.example,STUDENT,,,,,019566bd-2f07-726d-9713-1d4febc2e113,019566bd-2f0c-7fe3-ad32-9d96be2ca3a8,ACTIVE',
  'maria.keller@greenvalley.example,TEACHER,Maria,Keller,2025-08-25T00:00:00.000Z,2026-07-31T00:00:00.000Z,01990439-e0cf-7bb6-a138-b5e45cb53433,01990439-e0d1-7bdf-bc5b-04a3275f5eed,ACTIVE',
  'jerome.lefevre@greenvalley.example,STUDENT,Jérôme,Lefèvre,2025-09-01T00:00:00.000Z,2026-07-10T00:00:00.000Z,01990439-e0d8-7b9e-8e3d-6209b28842ea,01990439-e0da-7aca-bccf-49d5f181636f,ACTIVE',
  'liam.obrien@greenvalley.example,STUDENT,Liam,"O\'Brien, Jr.",2025-09-01T00:00:00.000Z,,01990439-e0df-7653-a908-07f6bf80947c,01990439-e0e1-78a1-a24a-f2ec232addff,ACTIVE',
  'lee.wong@greenvalley.example,STUDENT,"\'=HYPERLINK(""https://evil.example"",""Lee"")",,,,01990fbc-95a1-751c-9ef3-dec7f99566bb,01990fbc-95a4-7918-964d-65eb1c0bfa00,ACTIVE',
  ',STUDENT,,,,,01992899-8c34-727f-b296-de43dec00f13,01992899-8c37-7170-818a-2f39567f5029,SUSPENDED',
  'noor.haddad@greenvalley.example,TEACHER,Noor,Haddad,2026-01-05T00:00:00.000Z,2026-07-31T00:00:00.000Z,01993427-2eef-768e-9c90-165defa56fd2,01993427-2ef3-7c8c-b33b-93880609005e,SCHEDULED',
  '',
].join('\n');

/** The NDJSON the service writes for EXPORT_RECORDS: one object a line, every line ended. */
export const EXPORT_NDJSON_EXAMPLE = EXPORT_RECORDS.map((record) => `${JSON.stringify(record)}\n`).join('');

const columns = ROSTER_EXPORT_COLUMNS.join(',');

const CSV_DESCRIPTION =
  'UTF-8 beginning with a byte order mark (U+FEFF, so that Excel reads accented names right), lines ended by LF. ' +
  `A header row first, \`${columns}\`: the columns an import reads, then the membership's id and status. ` +
  'Then a row per membership, in creation order; the header alone when none matches the filters. ' +
  'Cells are quoted as RFC 4180 when they hold a comma, a quote or a line break (a quote inside doubled). ' +
  'An empty cell has no value: a member without an email (`userId` names them), a name or a term date. ' +
  "A cell that a spreadsheet would run as a formula (it starts with `=`, `+`, `-`, `@`, a tab or a carriage return) is written with `'` before it; the import removes it again. " +
  "The name is the member's own, or the one the tenant gave when inviting, split at its first space into `givenName` and `familyName`; " +
  'dates are ISO-8601 UTC (`2025-09-01T00:00:00.000Z`). Re-imported with `mode=sync`, the file changes nothing.';

const NDJSON_DESCRIPTION =
  'One JSON object per line (UTF-8, each line ended by LF), a line per membership, in creation order; ' +
  "an empty body when none matches the filters. Each object has the keys of the CSV's header, in its order: " +
  '`email` (string, or null for a member without one: `userId` names them), ' +
  '`role` (`OWNER`, `ADMIN`, `TEACHER` or `STUDENT`), ' +
  "`givenName` and `familyName` (strings or null: the member's own name, or the one the tenant gave when inviting, split at its first space), " +
  '`startsAt` and `endsAt` (ISO-8601 UTC timestamps, or null: no term date), ' +
  '`userId` and `tenantMembershipId` (UUIDs), ' +
  '`status` (`ACTIVE`, `SUSPENDED`, `SCHEDULED` or `ENDED`). ' +
  "Values as they are: no `'` before formula-like text (no spreadsheet reads this).";

type MediaType = { schema: Record<string, unknown>; examples: Record<string, Example<string>> };
export type ResponseMedia = { description: string; content: Record<string, MediaType> };

/** The responses whose bodies are not JSON, by operationId and status. */
export const EXPORT_RESPONSE_MEDIA: Record<string, Record<string, ResponseMedia>> = {
  exportMemberships: {
    200: {
      description:
        'The file, streamed and not enveloped: CSV (`format=csv`, the default) or NDJSON (`format=ndjson`), ' +
        'named by `Content-Disposition`. Errors before its first byte are the enveloped errors below; once it ' +
        'has begun, an error cuts it short (the connection closes before the end of the chunked body).',
      content: {
        'text/csv': {
          schema: { type: 'string', description: CSV_DESCRIPTION },
          examples: {
            members: {
              summary: "Green Valley's members: quoting, a neutralised formula, empty cells",
              value: EXPORT_CSV_EXAMPLE,
            },
          },
        },
        'application/x-ndjson': {
          schema: { type: 'string', description: NDJSON_DESCRIPTION },
          examples: {
            members: { summary: 'The same members, one JSON object per line', value: EXPORT_NDJSON_EXAMPLE },
          },
        },
      },
    },
  },
};
