/**
 * The floor's answers to the bench's requests, whatever front receives them (bare-server.ts: node:http;
 * floor-express.ts: express and @ts-rest/express, to measure what the framework alone costs). Each
 * read is one statement that reads the caller, its role in the URL's tenant and the data together
 * (floor-sql.ts); each write is BEGIN, the tenant's lock, one statement that reads the caller and
 * makes the change with the rules in its WHERE, and COMMIT.
 */
import { v7 as uuidv7 } from 'uuid';
import { Refusal, subjectVerifier } from './floor-auth.js';
import { CREATE, GET_ONE, type ListShape, LOCK_TENANT, listPage, ME, REMOVE } from './floor-sql.js';
import { pgliteSql, postgresSql, type Row, type Sql } from './sql.js';

export { Refusal };

const LEVEL: Record<string, number> = { OWNER: 40, ADMIN: 30, TEACHER: 20, STUDENT: 10 };
const ADMIN_LEVEL = 30;
/** Above OWNER: a super administrator may do anything an OWNER may, in every tenant. */
const SUPER_ADMIN_LEVEL = 100;
const PAGE_SIZE = 20;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string | undefined): value is string => value !== undefined && UUID.test(value);

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
function levelOf(caller: Row | undefined, tenantExists: boolean): number {
  if (!caller) throw new Refusal(401, 'UNAUTHENTICATED');
  if (caller.is_super_admin) {
    if (!tenantExists) throw new Refusal(404, 'TENANT_NOT_FOUND');
    return SUPER_ADMIN_LEVEL;
  }
  if (caller.caller_role === null) throw new Refusal(403, 'TENANT_ACCESS_DENIED');
  const level = LEVEL[caller.caller_role as string] ?? 0;
  if (level < ADMIN_LEVEL) throw new Refusal(403, 'INSUFFICIENT_ROLE');
  return level;
}

const iso = (value: unknown) => (value instanceof Date ? value : new Date(String(value))).toISOString();
const isoOrNull = (value: unknown) => (value === null || value === undefined ? null : iso(value));

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
    user: { userId: row.user_id, email: row.email, displayName: row.display_name },
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

const encodeCursor = (id: string) => Buffer.from(`v1:${id}`).toString('base64url');
// biome-ignore lint/suspicious/noControlCharactersInRegex: the contract refuses control characters in a search
const CONTROL = /[\u0000-\u001f\u007f]/;

type ListQuery = { limit: number; after?: string; role?: string; q?: string };

/** The list's query string as the contract reads it (server/src/pagination/cursor.ts for cursors). */
function listQueryOf(params: URLSearchParams): ListQuery | Refusal {
  const invalid = new Refusal(400, 'VALIDATION_FAILED');
  const limitText = params.get('limit');
  const limit = limitText === null ? PAGE_SIZE : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) return invalid;
  const query: ListQuery = { limit };
  const cursor = params.get('cursor');
  if (cursor !== null) {
    const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
    const id = decoded.startsWith('v1:') ? decoded.slice(3) : '';
    if (!isUuid(id) || encodeCursor(id) !== cursor) return invalid;
    query.after = id;
  }
  const role = params.get('role');
  if (role !== null) {
    if (!(role in LEVEL)) return invalid;
    query.role = role;
  }
  const q = params.get('q')?.trim();
  if (q !== undefined) {
    if (q.length < 1 || q.length > 200 || CONTROL.test(q)) return invalid;
    query.q = q;
  }
  // A filter by status is the service's alone: the bench never asks for one.
  if (params.has('status')) return new Refusal(501, 'NOT_IMPLEMENTED');
  const sort = params.get('sort');
  const includeTotal = params.get('includeTotal');
  if (includeTotal !== null && includeTotal !== 'true' && includeTotal !== 'false') return invalid;
  if ((sort !== null && sort !== 'createdAt') || includeTotal === 'true')
    return new Refusal(501, 'NOT_IMPLEMENTED');
  return query;
}

/** As the service's likePattern: the text is searched for as typed, `%`, `_` and `\` included. */
const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export type Answer = { status: number; body?: unknown; meta?: unknown; etag?: string };
export type FloorRequest = { subject: string; tenantId: string; membershipId?: string; url: URL };

/** Access first, then the request's own faults: a caller without rights learns nothing from them. */
export async function callerOnly(r: FloorRequest, fault: Refusal): Promise<never> {
  const [caller] = await sql.query(GET_ONE, [isUuid(r.tenantId) ? r.tenantId : null, r.subject, null]);
  if (isUuid(r.tenantId)) levelOf(caller, caller?.tenant_exists === true);
  else if (!caller) throw new Refusal(401, 'UNAUTHENTICATED');
  throw fault;
}

export async function getOne(r: FloorRequest): Promise<Answer> {
  if (!isUuid(r.membershipId)) return callerOnly(r, new Refusal(400, 'VALIDATION_FAILED'));
  const [row] = await sql.query(GET_ONE, [r.tenantId, r.subject, r.membershipId]);
  if (row && row.id !== null) return { status: 200, body: membershipDto(row), etag: `"${row.version}"` };
  levelOf(row, row?.tenant_exists === true);
  throw new Refusal(404, 'MEMBERSHIP_NOT_FOUND');
}

export async function list(r: FloorRequest): Promise<Answer> {
  const query = listQueryOf(r.url.searchParams);
  if (query instanceof Refusal) return callerOnly(r, query);
  const shape: ListShape = { after: Boolean(query.after), role: Boolean(query.role), q: Boolean(query.q) };
  const params: unknown[] = [r.tenantId, r.subject, query.limit + 1];
  if (query.after) params.push(query.after);
  if (query.role) params.push(query.role);
  if (query.q) params.push(likePattern(query.q));
  // A search is planned for its pattern every time: a prepared statement's generic plan, made for
  // any pattern and any tenant, reads the whole tenant's index for a name that five members have.
  const rows = await sql.query(listPage(shape), params, { prepare: !query.q });
  const found = rows.filter((row) => row.id !== null);
  // Nothing read: no such members, or no right to read them (the statement read none then).
  if (found.length === 0) levelOf(rows[0], rows[0]?.tenant_exists === true);
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
  return { status: 200, body: { user, memberships } };
}

/** The request's text as JSON, or the refusal the service gives to a body that is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return new Refusal(400, 'INVALID_JSON');
  }
}

/** `{ role, userId }` as the contract has it; an invitation by email is not the floor's. */
function createInputOf(body: unknown): { role: string; userId: string } | Refusal {
  if (body instanceof Refusal) return body;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return new Refusal(400, 'VALIDATION_FAILED');
  const { role, userId, ...rest } = body as Record<string, unknown>;
  if ('email' in rest) return new Refusal(501, 'NOT_IMPLEMENTED');
  if (typeof role !== 'string' || !(role in LEVEL) || typeof userId !== 'string' || !isUuid(userId))
    return new Refusal(400, 'VALIDATION_FAILED');
  if (Object.keys(rest).length > 0) return new Refusal(400, 'VALIDATION_FAILED');
  return { role, userId };
}

/** `parsed`: the body as JSON (parseJson), or the refusal it earned. */
export async function create(r: FloorRequest, parsed: unknown): Promise<Answer> {
  const body = createInputOf(parsed);
  return sql.transaction(async (tx) => {
    const locked = (await tx.query(LOCK_TENANT, [r.tenantId])).length > 0;
    const ok = locked && !(body instanceof Refusal);
    const [row] = await tx.query(CREATE, [
      r.tenantId,
      r.subject,
      ok ? body.userId : null,
      ok ? body.role : null,
      uuidv7(),
    ]);
    if (row && row.id !== null) return { status: 201, body: membershipDto(row), etag: `"${row.version}"` };
    const level = levelOf(row, locked);
    if (body instanceof Refusal) throw body;
    if ((LEVEL[body.role] ?? 0) > level) throw new Refusal(403, 'ROLE_HIERARCHY_VIOLATION');
    if (!row?.target_exists) throw new Refusal(404, 'USER_NOT_FOUND');
    throw new Refusal(409, 'MEMBERSHIP_ALREADY_EXISTS');
  });
}

export async function remove(r: FloorRequest): Promise<Answer> {
  const membershipId = isUuid(r.membershipId) ? r.membershipId : null;
  return sql.transaction(async (tx) => {
    const locked = (await tx.query(LOCK_TENANT, [r.tenantId])).length > 0;
    const [row] = await tx.query(REMOVE, [r.tenantId, r.subject, locked ? membershipId : null]);
    if (row?.deleted) return { status: 204 };
    const level = levelOf(row, locked);
    if (membershipId === null) throw new Refusal(400, 'VALIDATION_FAILED');
    const role = row?.target_role as string | null | undefined;
    if (!role) throw new Refusal(404, 'MEMBERSHIP_NOT_FOUND');
    if ((LEVEL[role] ?? 0) > level) throw new Refusal(403, 'ROLE_HIERARCHY_VIOLATION');
    if (row?.active_owner) throw new Refusal(409, 'LAST_OWNER');
    throw new Refusal(404, 'MEMBERSHIP_NOT_FOUND');
  });
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

/** What a framework's request carries once its authentication hook has run. */
export type Authenticated = { subject?: string; url: string };

/** The floor's request, from a framework's request and the contract's params. */
export const floorRequest = (
  request: Authenticated,
  params: { tenantId: string; tenantMembershipId?: string },
): FloorRequest => ({
  subject: request.subject ?? '',
  tenantId: params.tenantId,
  membershipId: params.tenantMembershipId,
  url: new URL(request.url, 'http://floor'),
});

/** A ts-rest route's result for an answer; `setHeader` is the framework's. */
export function routeResult(answer: Answer, setHeader: (name: string, value: string) => unknown): never {
  if (answer.etag) setHeader('ETag', answer.etag);
  // ts-rest's types want the contract's exact bodies; the floor's are the same JSON, untyped.
  return (
    answer.body === undefined
      ? { status: answer.status, body: undefined }
      : { status: answer.status, body: envelopeOf(answer) }
  ) as never;
}
