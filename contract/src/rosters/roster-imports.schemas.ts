import { z } from 'zod';
import { TimestampSchema, UuidSchema } from '../common/ids.js';
import { queryBoolean } from '../common/pagination.js';

/** The most rows one file may hold, and the most bytes: past either, 413. */
export const ROSTER_ROWS_MAX = 50_000;
export const ROSTER_BYTES_MAX = 10 * 1024 * 1024;
/** Files with more data rows than this are processed in the background (202 and a Location). */
export const ROSTER_ROWS_IN_REQUEST_MAX = 1_000;
/** The most row errors (and warnings) an import lists; `summary.invalid` counts them all. */
export const ROSTER_PROBLEMS_LISTED_MAX = 1_000;

export const ROSTER_IMPORT_MODES = ['add', 'sync'] as const;
export const ROSTER_IMPORT_STATUSES = ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED'] as const;

/** The columns of a member, which an import reads and the export writes. */
export const ROSTER_MEMBER_COLUMNS = [
  'email',
  'role',
  'givenName',
  'familyName',
  'startsAt',
  'endsAt',
  'userId',
] as const;
/** A student row's guardian, invited by email (optional; an import reads them, the export has none). */
export const ROSTER_GUARDIAN_COLUMNS = ['guardianEmail', 'guardianRelationship'] as const;

/** The columns an import reads (header names are matched case-insensitively); others are ignored. */
export const ROSTER_COLUMNS = [...ROSTER_MEMBER_COLUMNS, ...ROSTER_GUARDIAN_COLUMNS] as const;
export type RosterColumn = (typeof ROSTER_COLUMNS)[number];

/** The export's columns: a member's, then the membership's ids and status. */
export const ROSTER_EXPORT_COLUMNS = [...ROSTER_MEMBER_COLUMNS, 'tenantMembershipId', 'status'] as const;

/** OneRoster 1.2 roles, and the role each becomes (case-insensitive, as are ours). */
export const ONEROSTER_ROLES = {
  administrator: 'ADMIN',
  teacher: 'TEACHER',
  student: 'STUDENT',
  aide: 'TEACHER',
} as const;

/** What is wrong with a row (or the file: row 1 is the header). */
export const ROSTER_ROW_ERROR_CODES = [
  'MISSING_COLUMN',
  'REQUIRED',
  'INVALID_EMAIL',
  'INVALID_ROLE',
  'INVALID_DATE',
  'INVALID_TERM',
  'INVALID_USER_ID',
  'INVALID_NAME',
  'DUPLICATE_EMAIL',
  'UNKNOWN_MEMBER',
  'COLUMN_COUNT',
  'UNCLOSED_QUOTE',
  'INVALID_UTF8',
  'MALFORMED_CSV',
  'ROLE_HIERARCHY_VIOLATION',
  'LAST_OWNER',
  'MEMBERSHIP_MANAGED_BY_DIRECTORY',
  'INVALID_GUARDIAN_EMAIL',
  'INVALID_RELATIONSHIP',
  'GUARDIAN_NOT_STUDENT',
  'GUARDIAN_OF_SELF',
] as const;

/** What an import did not do, or ignored, without being wrong. */
export const ROSTER_WARNING_CODES = ['UNKNOWN_COLUMN', 'NOT_REMOVED'] as const;

export const RosterProblemSchema = z.object({
  row: z.number().int().min(1).nullable().describe('The row as numbered in the file: the header is 1'),
  column: z.string().nullable().describe('The column, as the file names it; null for the whole row'),
  code: z.string().describe('One of the codes in docs/rosters.md'),
  message: z.string(),
});
export type RosterProblem = z.infer<typeof RosterProblemSchema>;

export const RosterSummarySchema = z.object({
  create: z.number().int().min(0).describe('Members added (an unknown email becomes an invited user)'),
  updateRole: z.number().int().min(0).describe('Members whose role changes (their dates may change with it)'),
  updateTerm: z.number().int().min(0).describe('Members whose startsAt or endsAt changes, role unchanged'),
  remove: z.number().int().min(0).describe('Members removed (mode=sync: missing from the file)'),
  unchanged: z.number().int().min(0),
  invalid: z.number().int().min(0).describe('Rows with at least one error'),
  guardianInvitations: z
    .number()
    .int()
    .min(0)
    .describe(
      'Guardian invitations made (PENDING) from the guardian columns; none for a student and address ' +
        'that have one pending already, or whose holder is already their ACTIVE guardian',
    ),
});
export type RosterSummary = z.infer<typeof RosterSummarySchema>;

/** A summary of nothing: an import not read yet. */
export const emptyRosterSummary = (): RosterSummary => ({
  create: 0,
  updateRole: 0,
  updateTerm: 0,
  remove: 0,
  unchanged: 0,
  invalid: 0,
  guardianInvitations: 0,
});

export const RosterImportSchema = z.object({
  importId: UuidSchema,
  tenantId: UuidSchema,
  mode: z.enum(ROSTER_IMPORT_MODES),
  dryRun: z.boolean(),
  status: z.enum(ROSTER_IMPORT_STATUSES),
  progress: z.object({
    rowsRead: z.number().int().min(0),
    rowsTotal: z.number().int().min(0).describe('Data rows in the file (the header not counted)'),
  }),
  summary: RosterSummarySchema.describe(
    'What the import does (a dry run: would do); zeros until it has read the file',
  ),
  errors: z.array(RosterProblemSchema).describe(`At most ${ROSTER_PROBLEMS_LISTED_MAX}, in row order`),
  warnings: z.array(RosterProblemSchema).describe(`At most ${ROSTER_PROBLEMS_LISTED_MAX}`),
  failure: z
    .object({
      code: z.enum(['ROSTER_INVALID', 'ROSTER_REMOVAL_LIMIT', 'INTERNAL_ERROR']),
      message: z.string(),
    })
    .nullable()
    .describe(
      'Why nothing was applied (a dry run: why applying would be refused); null when it was, or would be',
    ),
  createdAt: TimestampSchema,
  finishedAt: TimestampSchema.nullable(),
});
export type RosterImport = z.infer<typeof RosterImportSchema>;

export const RosterImportQuerySchema = z.object({
  mode: z
    .enum(ROSTER_IMPORT_MODES)
    .default('add')
    .describe('add: add and update the rows; sync: also remove the members missing from the file'),
  dryRun: queryBoolean.default(false).describe('true: change nothing, answer what applying would do'),
  maxRemovalPercent: z.coerce
    .number()
    .min(0)
    .max(100)
    .default(10)
    .describe(
      'mode=sync: refuse (409 ROSTER_REMOVAL_LIMIT) to remove more than this share of the current members',
    ),
});
export type RosterImportQuery = z.infer<typeof RosterImportQuerySchema>;

/** One row of a JSON import: the CSV's columns as keys; unknown keys are ignored with a warning. */
export const RosterJsonRowSchema = z.record(z.string(), z.string().nullable());

/**
 * `application/json` bodies; `text/csv` bodies are read by the server as they stream in. Rows are
 * checked one by one (each error names its row), not by this schema.
 */
export const RosterImportBodySchema = z
  .object({ rows: z.array(RosterJsonRowSchema).max(ROSTER_ROWS_MAX) })
  .strict()
  .describe(
    '`application/json`: `{ rows: [{ email, role, … }] }`; or a `text/csv` body (see docs/rosters.md)',
  );

export const RosterImportIdParams = z.object({
  tenantId: UuidSchema.describe("The tenant's `tenantId` (a UUID)"),
  importId: UuidSchema.describe('The `importId` of the import, as the `Location` of its 202 gave it'),
});

export const MEMBERSHIP_EXPORT_FORMATS = ['csv', 'ndjson'] as const;
