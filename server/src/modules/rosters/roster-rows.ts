import {
  DisplayNameSchema,
  EmailSchema,
  GUARDIAN_RELATIONSHIPS,
  type GuardianRelationship,
  ONEROSTER_ROLES,
  ROLES,
  ROSTER_COLUMNS,
  type Role,
  type RosterColumn,
  type RosterProblem,
} from '@tms/contract';
import { datetimeRegex } from 'zod';
import { type EmailIdentity, emailIdentity, emailProblem } from '../../identity/email-address.js';
import type { RawRosterRow, RosterFile } from './roster-file.js';
import { type RosterProblemCode, rosterProblem } from './roster-header.js';

export type RosterRow = {
  row: number;
  /** null only when the cell is empty and userId is given (the export's email-less members) */
  email: EmailIdentity | null;
  /** the `userId` column (the export has it), lower-case; null when absent or empty */
  userId: string | null;
  /** undefined: no role column, or an empty cell (a new member is a STUDENT, an existing one keeps theirs) */
  role: Role | undefined;
  /** `${givenName} ${familyName}` trimmed, null if both empty (used for invited users only) */
  displayName: string | null;
  /** undefined: the file (a JSON row: the row) has no such column (left alone); null: empty cell (cleared) */
  startsAt: Date | null | undefined;
  endsAt: Date | null | undefined;
  /** The student's guardian to invite (the guardian columns); null: none. */
  guardian: RosterGuardian | null;
};
export type RosterGuardian = { email: EmailIdentity; relationship: GuardianRelationship };
/**
 * `errors` is the one list to report: the file's errors (RosterFile.errors) and the rows', sorted by
 * row, then column. `invalidRows` counts the data rows with at least one of them (`summary.invalid`).
 */
export type CheckedRows = { rows: RosterRow[]; errors: RosterProblem[]; invalidRows: number };

const ROLE_BY_NAME: ReadonlyMap<string, Role> = new Map<string, Role>([
  ...ROLES.map((role): [string, Role] => [role, role]),
  ...ROLES.map((role): [string, Role] => [role.toLowerCase(), role]),
  ...Object.entries(ONEROSTER_ROLES),
]);
const ROLE_MESSAGE = `role must be one of ${[...ROLES, ...Object.keys(ONEROSTER_ROLES)].join(', ')}`;
const RELATIONSHIP_BY_NAME: ReadonlyMap<string, GuardianRelationship> = new Map(
  GUARDIAN_RELATIONSHIPS.map((relationship) => [relationship.toLowerCase(), relationship]),
);
const RELATIONSHIP_MESSAGE = `guardianRelationship must be one of ${GUARDIAN_RELATIONSHIPS.join(', ')}, in any case`;

// The very check TermDateSchema makes (`z.string().datetime({ offset: true })`), built once: zod
// builds that regular expression again on every parse.
const DATE_TIME = datetimeRegex({ offset: true, precision: null, local: false });
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const TERM_FROM = Date.parse('1970-01-01T00:00:00Z');
const TERM_UNTIL = Date.parse('9999-12-31T23:59:59.999Z');
const DATE_MESSAGE =
  'must be a date (2025-09-01) or a date and time with its offset (2025-09-01T08:00:00+02:00), from 1970-01-01 to 9999-12-31';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const DISPLAY_NAME_MAX = DisplayNameSchema.maxLength ?? 200;

/** The characters the export puts a `'` before, so that a spreadsheet shows the cell instead of running it. */
const NEUTRALISED = new Set(['=', '+', '-', '@', '\t', '\r']);
/** A cell as written, without the export's neutralising `'`: an export re-imports as it was. */
const cellValue = (cell: string | undefined) =>
  cell !== undefined && cell.length > 1 && cell[0] === "'" && NEUTRALISED.has(cell[1] as string)
    ? cell.slice(1)
    : cell;
const shown = (text: string) => JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);

/** Checks every row; a row with an error is left out of `rows`; errors sorted by row, then column. */
export function checkRosterRows(file: RosterFile): CheckedRows {
  const checker = new RowChecker(file);
  for (const row of file.rows) checker.check(row);
  const errors = [...file.errors, ...checker.errors];
  const rank = columnRank(file);
  errors.sort((a, b) => (a.row ?? 0) - (b.row ?? 0) || rank(a.column) - rank(b.column));
  return { rows: checker.rows, errors, invalidRows: file.invalidRows + checker.invalidRows };
}

/** Columns in the contract's order: the whole row (null) first, then known, then others. */
function columnRank(file: RosterFile): (column: string | null) => number {
  const ranks = new Map<string, number>();
  for (const [index, column] of ROSTER_COLUMNS.entries())
    ranks.set(file.headerNames[column] ?? column, index);
  return (column) => (column === null ? -1 : (ranks.get(column) ?? ROSTER_COLUMNS.length));
}

class RowChecker {
  readonly rows: RosterRow[] = [];
  readonly errors: RosterProblem[] = [];
  invalidRows = 0;
  private readonly emailRows = new Map<string, number>();
  private readonly userIdRows = new Map<string, number>();
  /** A school's file repeats a few term dates over thousands of rows: each is read once. */
  private readonly times = new Map<string, number | undefined>();

  constructor(private readonly file: RosterFile) {}

  check({ row, cells }: RawRosterRow): void {
    const before = this.errors.length;
    const userId = this.userId(row, cellValue(cells.userId));
    const email = this.email(row, cellValue(cells.email), cells.userId);
    const role = this.role(row, cellValue(cells.role));
    const startsAt = this.date(row, 'startsAt', cellValue(cells.startsAt));
    const endsAt = this.date(row, 'endsAt', cellValue(cells.endsAt));
    if (startsAt && endsAt && endsAt.getTime() <= startsAt.getTime())
      this.fail(row, 'endsAt', 'INVALID_TERM', 'endsAt must be after startsAt');
    const displayName = this.displayName(row, cellValue(cells.givenName), cellValue(cells.familyName));
    const guardian = this.guardian(
      row,
      email,
      cellValue(cells.guardianEmail),
      cellValue(cells.guardianRelationship),
    );
    this.once(row, 'email', email?.canonical, this.emailRows);
    this.once(row, 'userId', userId, this.userIdRows);
    if (this.errors.length > before) {
      this.invalidRows++;
      return;
    }
    this.rows.push({ row, email: email ?? null, userId, role, displayName, startsAt, endsAt, guardian });
  }

  private fail(row: number, column: RosterColumn, code: RosterProblemCode, message: string): void {
    this.errors.push(rosterProblem(row, this.file.headerNames[column] ?? column, code, message));
  }

  private userId(row: number, text: string | undefined): string | null {
    if (!text) return null;
    if (UUID.test(text)) return text.toLowerCase();
    this.fail(
      row,
      'userId',
      'INVALID_USER_ID',
      `userId ${shown(text)} is not a UUID: copy it from the export`,
    );
    return null;
  }

  /** Checked and canonicalised as "add by email" does: the contract's EmailSchema, then identity. */
  private email(
    row: number,
    text: string | undefined,
    userIdCell: string | undefined,
  ): EmailIdentity | undefined {
    if (!text) {
      if (!userIdCell)
        this.fail(row, 'email', 'REQUIRED', "email is required: give the member's email address");
      return undefined;
    }
    const shape = EmailSchema.safeParse(text);
    const identity = shape.success ? emailIdentity(shape.data) : undefined;
    if (identity) return identity;
    const why = shape.success
      ? (emailProblem(shape.data) ?? 'not valid')
      : text.length > 254
        ? 'longer than 254 characters'
        : (shape.error.issues[0]?.message ?? 'not valid');
    this.fail(row, 'email', 'INVALID_EMAIL', `email ${shown(text)} is not valid: ${why}`);
    return undefined;
  }

  /**
   * The guardian columns, checked as POST …/guardian-invitations checks its body: an address as
   * "add by email" takes it, one of the relationships (GUARDIAN when the cell is empty), and not the
   * member's own address. A relationship without an address asks for nobody.
   */
  private guardian(
    row: number,
    member: EmailIdentity | undefined,
    address: string | undefined,
    relationshipText: string | undefined,
  ): RosterGuardian | null {
    let relationship: GuardianRelationship = 'GUARDIAN';
    if (relationshipText) {
      const named = RELATIONSHIP_BY_NAME.get(relationshipText.toLowerCase());
      if (named) relationship = named;
      else this.fail(row, 'guardianRelationship', 'INVALID_RELATIONSHIP', RELATIONSHIP_MESSAGE);
    }
    if (!address) {
      if (relationshipText)
        this.fail(row, 'guardianEmail', 'REQUIRED', 'guardianRelationship is given without a guardianEmail');
      return null;
    }
    const shape = EmailSchema.safeParse(address);
    const email = shape.success ? emailIdentity(shape.data) : undefined;
    if (!email) {
      const why = shape.success ? (emailProblem(shape.data) ?? 'not valid') : 'not an email address';
      this.fail(
        row,
        'guardianEmail',
        'INVALID_GUARDIAN_EMAIL',
        `guardianEmail ${shown(address)} is not valid: ${why}`,
      );
      return null;
    }
    if (member && member.canonical === email.canonical) {
      this.fail(row, 'guardianEmail', 'GUARDIAN_OF_SELF', "guardianEmail is the student's own address");
      return null;
    }
    return { email, relationship };
  }

  private role(row: number, text: string | undefined): Role | undefined {
    if (!text) return undefined;
    const role = ROLE_BY_NAME.get(text) ?? ROLE_BY_NAME.get(text.toLowerCase());
    if (role === undefined) this.fail(row, 'role', 'INVALID_ROLE', ROLE_MESSAGE);
    return role;
  }

  private date(
    row: number,
    column: 'startsAt' | 'endsAt',
    text: string | undefined,
  ): Date | null | undefined {
    if (text === undefined) return undefined;
    if (text === '') return null;
    let time = this.times.get(text);
    if (time === undefined && !this.times.has(text)) {
      time = termTime(text);
      this.times.set(text, time);
    }
    if (time !== undefined) return new Date(time);
    this.fail(row, column, 'INVALID_DATE', `${column} ${DATE_MESSAGE}`);
    return undefined;
  }

  private displayName(row: number, given = '', family = ''): string | null {
    const givenValid = this.oneLine(row, 'givenName', given);
    const valid = this.oneLine(row, 'familyName', family) && givenValid;
    const name = `${given} ${family}`.trim();
    if (valid && name.length > DISPLAY_NAME_MAX) {
      const message = `givenName and familyName must be at most ${DISPLAY_NAME_MAX} characters together`;
      this.fail(row, family ? 'familyName' : 'givenName', 'INVALID_NAME', message);
    }
    return name === '' ? null : name;
  }

  private oneLine(row: number, column: 'givenName' | 'familyName', text: string): boolean {
    if (!CONTROL.test(text)) return true;
    this.fail(row, column, 'INVALID_NAME', `${column} must be one line of text, without control characters`);
    return false;
  }

  /** A member is listed once: a later row naming the same one is the error, naming the first. */
  private once(
    row: number,
    column: 'email' | 'userId',
    key: string | null | undefined,
    rows: Map<string, number>,
  ) {
    if (!key) return;
    const first = rows.get(key);
    if (first === undefined) rows.set(key, row);
    else
      this.fail(row, column, 'DUPLICATE_EMAIL', `the same ${column} as row ${first}: list each member once`);
  }
}

/** A date is midnight UTC; a date and time must carry its offset, as the API's term dates do. */
function termTime(text: string): number | undefined {
  let time: number;
  const date = DATE_ONLY.exec(text);
  if (date) {
    const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
    time = Date.UTC(year, month - 1, day);
    const back = new Date(time);
    // Date.UTC rolls 2025-02-30 over to March, and reads years below 100 as 19xx.
    if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day)
      return undefined;
  } else if (DATE_TIME.test(text)) {
    time = Date.parse(text);
  } else {
    return undefined;
  }
  return time >= TERM_FROM && time <= TERM_UNTIL ? time : undefined;
}
