/**
 * The reference: node:http and one database driver, doing what the service does for the routes the
 * bench drives: verify the HS256 token with jose, read the caller by subject, read the caller's role
 * in the tenant, then the route's own statements, with the very SQL text the service sends (copied
 * from its query log; see server/test/query-count.test.ts for the counts). No framework, no ORM, no
 * validation library, no security headers, no request log: what is left is the floor.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jwtVerify } from 'jose';
import { v7 as uuidv7 } from 'uuid';
import { pgliteSql, postgresSql, type Row, type Sql } from './sql.js';

const MEMBERSHIP_COLUMNS = `"tenant_memberships"."id", "tenant_memberships"."tenant_id", "tenant_memberships"."user_id", "tenant_memberships"."role", "tenant_memberships"."version", "tenant_memberships"."created_at", "tenant_memberships"."updated_at"`;
const WITH_USER = `select ${MEMBERSHIP_COLUMNS}, "users"."email", "users"."display_name" from "tenant_memberships" inner join "users" on "users"."id" = "tenant_memberships"."user_id"`;

export const SQL = {
  userBySubject: `select "id", "subject", "email", "display_name", "is_super_admin", "created_at", "updated_at" from "users" where "users"."subject" = $1 limit $2`,
  userWithRole: `select "users"."id", "users"."subject", "users"."email", "users"."display_name", "users"."is_super_admin", "users"."created_at", "users"."updated_at", "tenant_memberships"."role" from "users" left join "tenant_memberships" on ("tenant_memberships"."user_id" = "users"."id" and "tenant_memberships"."tenant_id" = $1) where "users"."subject" = $2 limit $3`,
  userById: `select "id", "subject", "email", "display_name", "is_super_admin", "created_at", "updated_at" from "users" where "users"."id" = $1 limit $2`,
  memberRole: `select "role" from "tenant_memberships" where ("tenant_memberships"."tenant_id" = $1 and "tenant_memberships"."user_id" = $2) limit $3`,
  membership: `${WITH_USER} where ("tenant_memberships"."tenant_id" = $1 and "tenant_memberships"."id" = $2) limit $3`,
  firstPage: `${WITH_USER} where "tenant_memberships"."tenant_id" = $1 order by "tenant_memberships"."id" asc limit $2`,
  pageAfter: `${WITH_USER} where ("tenant_memberships"."tenant_id" = $1 and "tenant_memberships"."id" > $2) order by "tenant_memberships"."id" asc limit $3`,
  myMemberships: `select "tenant_memberships"."id", "tenants"."id", "tenants"."slug", "tenants"."name", "tenant_memberships"."role" from "tenant_memberships" inner join "tenants" on "tenants"."id" = "tenant_memberships"."tenant_id" where "tenant_memberships"."user_id" = $1 order by "tenant_memberships"."id" asc`,
  lockTenant: `select "id" from "tenants" where "tenants"."id" = $1 for update`,
  insertMembership: `insert into "tenant_memberships" ("id", "tenant_id", "user_id", "role", "version", "created_at", "updated_at") values ($1, $2, $3, $4, default, default, default) returning "id", "tenant_id", "user_id", "role", "version", "created_at", "updated_at"`,
  countOwners: `select count(*) from "tenant_memberships" where ("tenant_memberships"."tenant_id" = $1 and "tenant_memberships"."role" = $2)`,
  deleteMembership: `delete from "tenant_memberships" where ("tenant_memberships"."tenant_id" = $1 and "tenant_memberships"."id" = $2) returning "id"`,
};

const LEVEL: Record<string, number> = { OWNER: 40, ADMIN: 30, TEACHER: 20, STUDENT: 10 };
const ADMIN_LEVEL = 30;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ROUTE = /^\/tenants\/([0-9a-f-]{36})\/memberships(?:\/([0-9a-f-]{36}))?$/;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
}

type Query = Pick<Sql, 'query'>;
type Caller = {
  userId: string;
  email: string | null;
  displayName: string | null;
  isSuperAdmin: boolean;
  role: string | null;
};

const env = process.env;
const secret = new TextEncoder().encode(env.AUTH_JWT_SECRET ?? '');
const sql: Sql = env.BARE_PGLITE_DIR
  ? await pgliteSql(env.BARE_PGLITE_DIR)
  : postgresSql(env.BARE_DATABASE_URL ?? '', {
      max: Number(env.BARE_POOL_SIZE ?? 10),
      prepare: env.BARE_PREPARE !== '0',
    });

async function authenticate(req: IncomingMessage, tenantId: string | undefined): Promise<Caller> {
  const match = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
  if (!match?.[1]) throw new HttpError(401, 'UNAUTHENTICATED');
  const { payload } = await jwtVerify(match[1], secret, {
    algorithms: ['HS256'],
    clockTolerance: 5,
    requiredClaims: ['sub'],
  }).catch(() => {
    throw new HttpError(401, 'UNAUTHENTICATED');
  });
  // As the service does: on tenant routes, the caller's role there comes with the caller.
  const [user] = tenantId
    ? await sql.query(SQL.userWithRole, [tenantId, payload.sub, 1])
    : await sql.query(SQL.userBySubject, [payload.sub, 1]);
  if (!user) throw new HttpError(401, 'UNAUTHENTICATED');
  return {
    userId: user.id as string,
    email: user.email as string | null,
    displayName: user.display_name as string | null,
    isSuperAdmin: user.is_super_admin as boolean,
    role: (user.role as string | null | undefined) ?? null,
  };
}

/** The level read with the caller; OWNER or ADMIN only. */
function callerLevel(caller: Caller): number {
  if (!caller.role) throw new HttpError(403, 'TENANT_ACCESS_DENIED');
  const level = LEVEL[caller.role] ?? 0;
  if (level < ADMIN_LEVEL) throw new HttpError(403, 'INSUFFICIENT_ROLE');
  return level;
}

/** The caller's level in the tenant; OWNER or ADMIN only. */
async function tenantLevel(db: Query, caller: Caller, tenantId: string): Promise<number> {
  const [row] = await db.query(SQL.memberRole, [tenantId, caller.userId, 1]);
  if (!row) throw new HttpError(403, 'TENANT_ACCESS_DENIED');
  const level = LEVEL[row.role as string] ?? 0;
  if (level < ADMIN_LEVEL) throw new HttpError(403, 'INSUFFICIENT_ROLE');
  return level;
}

const iso = (value: unknown) => (value instanceof Date ? value : new Date(String(value))).toISOString();

function membershipDto(row: Row, user: { email: unknown; displayName: unknown }) {
  return {
    tenantMembershipId: row.id,
    tenantId: row.tenant_id,
    userId: row.user_id,
    role: row.role,
    roleLevel: LEVEL[row.role as string],
    version: row.version,
    user: { userId: row.user_id, email: user.email, displayName: user.displayName },
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}
const withUserDto = (row: Row) => membershipDto(row, { email: row.email, displayName: row.display_name });

function afterCursor(cursor: string | null): string | undefined {
  if (cursor === null) return undefined;
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  const id = decoded.startsWith('v1:') ? decoded.slice(3) : '';
  if (!UUID.test(id)) throw new HttpError(400, 'VALIDATION_FAILED');
  return id;
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) text += chunk;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new HttpError(400, 'VALIDATION_FAILED');
  }
}

type Answer = { status: number; body?: unknown; etag?: string };

async function route(req: IncomingMessage): Promise<Answer> {
  const url = new URL(req.url ?? '/', 'http://bare');
  const match = ROUTE.exec(url.pathname);
  const tenantId = match?.[1];
  const caller = await authenticate(req, tenantId);
  if (url.pathname === '/me' && req.method === 'GET') {
    const rows = await sql.query(SQL.myMemberships, [caller.userId]);
    const memberships = rows.map((row) => ({
      tenantMembershipId: row.id,
      tenantId: row.tenant_id,
      tenantSlug: row.slug,
      tenantName: row.name,
      role: row.role,
      roleLevel: LEVEL[row.role as string],
    }));
    const { userId, email, displayName, isSuperAdmin } = caller;
    return { status: 200, body: { user: { userId, email, displayName, isSuperAdmin }, memberships } };
  }
  if (!tenantId || !match) throw new HttpError(404, 'NOT_FOUND');
  const membershipId = match[2];
  if (req.method === 'GET' && membershipId) {
    callerLevel(caller);
    const [row] = await sql.query(SQL.membership, [tenantId, membershipId, 1]);
    if (!row) throw new HttpError(404, 'MEMBERSHIP_NOT_FOUND');
    return { status: 200, body: withUserDto(row), etag: `"${row.version}"` };
  }
  if (req.method === 'GET') {
    callerLevel(caller);
    const limit = Number(url.searchParams.get('limit') ?? 20);
    const after = afterCursor(url.searchParams.get('cursor'));
    const rows = after
      ? await sql.query(SQL.pageAfter, [tenantId, after, limit + 1])
      : await sql.query(SQL.firstPage, [tenantId, limit + 1]);
    const items = rows.slice(0, limit);
    const last = items.at(-1);
    const nextCursor =
      rows.length > limit && last ? Buffer.from(`v1:${last.id}`).toString('base64url') : null;
    return { status: 200, body: { data: items.map(withUserDto), meta: { nextCursor } } };
  }
  if (req.method === 'POST' && !membershipId) {
    callerLevel(caller);
    const body = await readBody(req);
    const role = String(body.role);
    if (!(role in LEVEL) || typeof body.userId !== 'string' || !UUID.test(body.userId))
      throw new HttpError(400, 'VALIDATION_FAILED');
    const userId = body.userId;
    return sql.transaction(async (tx) => {
      await tx.query(SQL.lockTenant, [tenantId]);
      if ((LEVEL[role] ?? 0) > (await tenantLevel(tx, caller, tenantId)))
        throw new HttpError(403, 'ROLE_HIERARCHY_VIOLATION');
      const [user] = await tx.query(SQL.userById, [userId, 1]);
      if (!user) throw new HttpError(404, 'USER_NOT_FOUND');
      const [row] = await tx.query(SQL.insertMembership, [uuidv7(), tenantId, userId, role]);
      if (!row) throw new Error('insert returned no row');
      const dto = membershipDto(row, { email: user.email, displayName: user.display_name });
      return { status: 201, body: dto, etag: `"${row.version}"` };
    });
  }
  if (req.method === 'DELETE' && membershipId) {
    callerLevel(caller);
    return sql.transaction(async (tx) => {
      await tx.query(SQL.lockTenant, [tenantId]);
      const level = await tenantLevel(tx, caller, tenantId);
      const [row] = await tx.query(SQL.membership, [tenantId, membershipId, 1]);
      if (!row) throw new HttpError(404, 'MEMBERSHIP_NOT_FOUND');
      if ((LEVEL[row.role as string] ?? 0) > level) throw new HttpError(403, 'ROLE_HIERARCHY_VIOLATION');
      if (row.role === 'OWNER') {
        const [owners] = await tx.query(SQL.countOwners, [tenantId, 'OWNER']);
        if (Number(owners?.count) <= 1) throw new HttpError(409, 'LAST_OWNER');
      }
      await tx.query(SQL.deleteMembership, [tenantId, membershipId]);
      return { status: 204 };
    });
  }
  throw new HttpError(405, 'METHOD_NOT_ALLOWED');
}

function send(res: ServerResponse, answer: Answer): void {
  if (answer.body === undefined) {
    res.writeHead(answer.status).end();
    return;
  }
  const body = JSON.stringify({
    success: true,
    ...(isList(answer.body) ? answer.body : { data: answer.body }),
  });
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (answer.etag) headers.etag = answer.etag;
  res.writeHead(answer.status, headers).end(body);
}
const isList = (body: unknown): body is { data: unknown; meta: unknown } =>
  typeof body === 'object' && body !== null && 'meta' in body;

const server = createServer((req, res) => {
  route(req).then(
    (answer) => send(res, answer),
    (error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      if (status === 500) console.error(error);
      const code = error instanceof HttpError ? error.code : 'INTERNAL_ERROR';
      res
        .writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
        .end(JSON.stringify({ success: false, error: { code } }));
    },
  );
});
server.listen(Number(env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => {
  server.close(() => sql.close().then(() => process.exit(0)));
  server.closeAllConnections();
});
