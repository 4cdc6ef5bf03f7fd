/**
 * The floor's answers to the bench's requests (bare-server.ts receives them). Each read is one
 * statement that reads the caller, its role in the URL's tenant and the data together; each write
 * is BEGIN, the tenant's lock, one statement that reads the caller, makes the change with the rules
 * in its WHERE and records its audit event and webhook deliveries, and COMMIT, all sent at once
 * (floor-sql.ts). A request the bench never sends, malformed ones included, is answered 501.
 */
import { v7 as uuidv7 } from 'uuid';
import { Refusal, subjectVerifier } from './floor-auth.js';
import { CREATE, GET_ONE, LEVEL, type ListShape, LOCK_TENANT, listPage, ME, REMOVE } from './floor-sql.js';
import { pgliteSql, postgresSql, type Row, type Sql } from './sql.js';

export { Refusal };

const ADMIN_LEVEL = 30;
/** Above OWNER: a super administrator may do anything an OWNER may, in every tenant. */
const SUPER_ADMIN_LEVEL = 100;
const PAGE_SIZE = 20;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string | undefined): value is string => value !== undefined && UUID.test(value);
export const notImplemented = () => new Refusal(501, 'NOT_IMPLEMENTED');

const env = process.env;
export const subjectOf = subjectVerifier(env.AUTH_JWT_SECRET ?? '');
export const sql: Sql = env.BARE_PGLITE_DIR
  ? await pgliteSql(env.BARE_PGLITE_DIR)
  : postgresSql(env.BARE_DATABASE_URL ?? '', {
      max: Number(env.BARE_POOL_SIZE ?? 10),
      prepare: env.BARE_PREPARE !== '0',
    });

/**
 * Which refusal applies when a statement read or wrote nothing: the statements enforce the rules
 * in their WHERE, so a row read or written is the answer, and the caller's columns only explain a
 * refusal. As the service decides (server/src/access/decide-access.ts): a non-member learns
 * nothing about the tenant, not even whether it exists; only a super administrator is told
 * TENANT_NOT_FOUND. Returns the caller's level in the tenant.
 */
function levelOf(caller: Row | undefined): number {
  if (!caller) throw new Refusal(401, 'UNAUTHENTICATED');
  if (caller.is_super_admin) {
    if (!caller.tenant_exists) throw new Refusal(404, 'TENANT_NOT_FOUND');
    return SUPER_ADMIN_LEVEL;
  }
  if (caller.caller_role === null) throw new Refusal(403, 'TENANT_ACCESS_DENIED');
  const level = LEVEL[caller.caller_role as string] ?? 0;
  if (level < ADMIN_LEVEL) throw new Refusal(403, 'INSUFFICIENT_ROLE');
  return level;
}

const iso = (value: unknown) => (value instanceof Date ? value : new Date(String(value))).toISOString();
const isoOrNull = (value: unknown) => (value === null || value === undefined ? null : iso(value));

/** As server/src/modules/memberships/memberships.dto.ts (floor-sql.ts's membershipJson for events). */
function membershipDto(row: Row) {
  return {
    tenantMembershipId: row.id,
    tenantId: row.tenant_id,
    userId: row.user_id,
    role: row.role,
    roleLevel: LEVEL[row.role as string],
    status: row.status,
    startsAt: isoOrNull(row.starts_at),
    endsAt: isoOrNull(row.ends_at),
    suspendedAt: isoOrNull(row.suspended_at),
    suspensionReason: row.suspension_reason ?? null,
    version: row.version,
    managedBy: row.managed_by ?? null,
    user: { userId: row.user_id, email: row.email, displayName: row.display_name },
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

const encodeCursor = (id: string) => Buffer.from(`v1:${id}`).toString('base64url');
// biome-ignore lint/suspicious/noControlCharactersInRegex: the contract refuses control characters in a search
const CONTROL = /[\u0000-\u001f\u007f]/;
/** The list's query parameters the floor reads; any other (sort, status, includeTotal) is 501. */
const LIST_PARAMS = new Set(['limit', 'cursor', 'role', 'q']);

type ListQuery = { limit: number; after?: string; role?: string; q?: string };

/**
 * The list's query string as the contract reads it (server/src/pagination/cursor.ts for cursors),
 * for what the bench sends and the test pages with; anything else, or malformed, is undefined.
 */
function listQueryOf(params: URLSearchParams): ListQuery | undefined {
  for (const key of params.keys()) if (!LIST_PARAMS.has(key)) return undefined;
  const limitText = params.get('limit');
  const limit = limitText === null ? PAGE_SIZE : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) return undefined;
  const query: ListQuery = { limit };
  const cursor = params.get('cursor');
  if (cursor !== null) {
    const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
    const id = decoded.startsWith('v1:') ? decoded.slice(3) : '';
    if (!isUuid(id) || encodeCursor(id) !== cursor) return undefined;
    query.after = id;
  }
  const role = params.get('role');
  if (role !== null) {
    if (!(role in LEVEL)) return undefined;
    query.role = role;
  }
  const q = params.get('q')?.trim();
  if (q !== undefined) {
    if (q.length < 1 || q.length > 200 || CONTROL.test(q)) return undefined;
    query.q = q;
  }
  return query;
}

/** As the service's likePattern: the text is searched for as typed, `%`, `_` and `\` included. */
const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export type Answer = { status: number; body?: unknown; meta?: unknown; etag?: string };
/** Who asks (the token's subject), about which tenant (a UUID). */
export type Scope = { subject: string; tenantId: string };

export async function getOne({ subject, tenantId }: Scope, membershipId: string): Promise<Answer> {
  const [row] = await sql.query(GET_ONE, [tenantId, subject, membershipId]);
  if (row && row.id !== null) return { status: 200, body: membershipDto(row), etag: `"${row.version}"` };
  levelOf(row);
  throw new Refusal(404, 'MEMBERSHIP_NOT_FOUND');
}

export async function list({ subject, tenantId }: Scope, params: URLSearchParams): Promise<Answer> {
  const query = listQueryOf(params);
  if (!query) throw notImplemented();
  const shape: ListShape = { after: Boolean(query.after), role: Boolean(query.role), q: Boolean(query.q) };
  const values: unknown[] = [tenantId, subject, query.limit + 1];
  if (query.after) values.push(query.after);
  if (query.role) values.push(query.role);
  if (query.q) values.push(likePattern(query.q));
  // A search is planned for its pattern every time: a prepared statement's generic plan, made for
  // any pattern and any tenant, reads the whole tenant's index for a name that five members have.
  const rows = await sql.query(listPage(shape), values, { prepare: !query.q });
  const found = rows.filter((row) => row.id !== null);
  // Nothing read: no such members, or no right to read them (the statement read none then).
  if (found.length === 0) levelOf(rows[0]);
  const items = found.slice(0, query.limit);
  const last = items.at(-1);
  const nextCursor = found.length > query.limit && last ? encodeCursor(last.id as string) : null;
  return { status: 200, body: items.map(membershipDto), meta: { nextCursor } };
}

export async function me(subject: string): Promise<Answer> {
  const rows = await sql.query(ME, [subject]);
  const [caller] = rows;
  if (!caller) throw new Refusal(401, 'UNAUTHENTICATED');
  const memberships = rows
    .filter((row) => row.id !== null)
    .map((row) => ({
      tenantMembershipId: row.id,
      tenantId: row.tenant_id,
      tenantSlug: row.slug,
      tenantName: row.name,
      role: row.role,
      roleLevel: LEVEL[row.role as string],
      status: row.status,
      startsAt: isoOrNull(row.starts_at),
      endsAt: isoOrNull(row.ends_at),
    }));
  const user = {
    userId: caller.caller_id,
    email: caller.email,
    displayName: caller.display_name,
    isSuperAdmin: caller.is_super_admin,
  };
  return { status: 200, body: { user, memberships, guardianOf: caller.guardian_of } };
}

/** `{ role, userId }` as the contract has it, the bench's POST; anything else is undefined. */
function createInputOf(text: string): { role: string; userId: string } | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { role, userId, ...rest } = body as Record<string, unknown>;
  if (typeof role !== 'string' || !(role in LEVEL) || typeof userId !== 'string' || !isUuid(userId))
    return undefined;
  return Object.keys(rest).length === 0 ? { role, userId } : undefined;
}

/**
 * The lock and the change in one transaction, one round trip; the change's row (or the caller's
 * columns that explain a refusal). The event's id is made here, as the service makes it.
 */
async function change(scope: Scope, statement: string, requestId: string, values: unknown[]) {
  const [, rows] = await sql.inOneTrip([
    [LOCK_TENANT, [scope.tenantId]],
    [statement, [scope.tenantId, scope.subject, uuidv7(), requestId, ...values]],
  ]);
  return rows?.[0];
}

/** `text`: the request's body. */
export async function create(scope: Scope, text: string, requestId: string): Promise<Answer> {
  const body = createInputOf(text);
  if (!body) throw notImplemented();
  const row = await change(scope, CREATE, requestId, [body.userId, body.role, uuidv7()]);
  if (row && row.id !== null) return { status: 201, body: membershipDto(row), etag: `"${row.version}"` };
  const level = levelOf(row);
  if ((LEVEL[body.role] ?? 0) > level) throw new Refusal(403, 'ROLE_HIERARCHY_VIOLATION');
  if (!row?.target_exists) throw new Refusal(404, 'USER_NOT_FOUND');
  throw new Refusal(409, 'MEMBERSHIP_ALREADY_EXISTS');
}

export async function remove(scope: Scope, membershipId: string, requestId: string): Promise<Answer> {
  const row = await change(scope, REMOVE, requestId, [membershipId]);
  if (row?.deleted) return { status: 204 };
  const level = levelOf(row);
  const role = row?.target_role as string | null | undefined;
  if (!role) throw new Refusal(404, 'MEMBERSHIP_NOT_FOUND');
  if ((LEVEL[role] ?? 0) > level) throw new Refusal(403, 'ROLE_HIERARCHY_VIOLATION');
  if (row?.active_owner) throw new Refusal(409, 'LAST_OWNER');
  throw new Refusal(404, 'MEMBERSHIP_NOT_FOUND');
}

/** The service's envelope around an answer's body. */
export const envelopeOf = (answer: Answer) =>
  answer.meta === undefined
    ? { success: true, data: answer.body }
    : { success: true, data: answer.body, meta: answer.meta };

/** The service's envelope around a refusal. */
export const refusalBody = (refusal: Refusal) => ({
  success: false,
  error: { code: refusal.code, message: refusal.code },
});
