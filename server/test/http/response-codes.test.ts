import { randomUUID } from 'node:crypto';
import {
  GUARDIANS_PER_STUDENT_MAX,
  HTTP_STATUS,
  RESPONSE_CODES,
  type ResponseCode,
  WEBHOOKS_PER_OWNER_MAX,
} from '@tms/contract';
import { and, eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admission } from '../../src/admission/admission.js';
import type { Database } from '../../src/db/database.js';
import { joinBlocks, tenantMemberships } from '../../src/db/schema.js';
import { claimKey } from '../../src/idempotency/idempotency.repository.js';
import {
  type Actor,
  addMember,
  createActor,
  createSuperAdmin,
  createTenantFixture,
  type TenantFixture,
  unique,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { jsonOf } from '../support/json.js';

const MISSING = '01900000-0000-7000-8000-000000000000';

let h: TestServer;
let admin: Actor;
let tenant: TenantFixture;
let student: Actor;
let teacherMembershipId: string;
let broken: TestServer;
let unreachable: TestServer;
let limited: TestServer;
let crowded: TestServer;
let full: TestServer;
/** Slots held as another request would hold them: what the refusals are measured against. */
const crowding = new Admission({ slots: 10, share: 1, writes: 1, maxWaitMs: 0 });
const filling = new Admission({ slots: 1, share: 1, writes: 1, maxWaitMs: 0 });

/** A database whose every call throws a plain Error: stands for a bug nobody anticipated. */
const explodingDb = new Proxy({} as Database, {
  get: () => () => {
    throw new Error('boom: secret internals at db.ts:42');
  },
});

beforeAll(async () => {
  h = await startTestServer({ codeTriesPerMinute: 0 });
  admin = await createSuperAdmin(h);
  tenant = await createTenantFixture(h);
  student = (await addMember(h, tenant.tenantId, 'STUDENT')).actor;
  teacherMembershipId = (await addMember(h, tenant.tenantId, 'TEACHER')).membershipId;
  limited = await startTestServer({ database: h.database, rateLimit: { max: 1, windowSeconds: 3600 } });
  crowded = await startTestServer({ database: h.database, admission: crowding });
  full = await startTestServer({ database: h.database, admission: filling });
  broken = await startTestServer({ database: { db: explodingDb, kind: 'postgres', close: async () => {} } });
  const refused = postgres('postgres://nobody@127.0.0.1:9/none', { connect_timeout: 2, max: 1 });
  unreachable = await startTestServer({
    database: { db: drizzle(refused) as unknown as Database, kind: 'postgres', close: () => refused.end() },
  });
});
afterAll(async () => {
  await limited?.close();
  await crowded?.close();
  await full?.close();
  await broken?.close();
  await unreachable?.close();
  await h?.close();
});

type Call = {
  path: string;
  method?: string;
  token?: string;
  body?: string;
  headers?: Record<string, string>;
};
const json = 'application/json';

const newTenant = () => {
  const slug = unique('idem');
  return JSON.stringify({ name: slug, slug, owner: { userId: admin.userId } });
};

async function call(server: TestServer, { path, method = 'GET', token, body, headers = {} }: Call) {
  return fetch(`${server.baseUrl}${path}`, {
    method,
    body,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': json } : {}),
      ...headers,
    },
  });
}

const memberships = () => `/tenants/${tenant.tenantId}/memberships`;

/** A join code of the tenant, made by its OWNER: its characters. */
async function joinCode(body: { requiresApproval?: boolean } = {}): Promise<string> {
  const res = await call(h, {
    path: `/tenants/${tenant.tenantId}/join-codes`,
    method: 'POST',
    token: tenant.owner.token,
    body: JSON.stringify(body),
  });
  return ((await res.json()) as { data: { code: string } }).data.code;
}

const join = (token: string, code: string) =>
  call(h, { path: '/join', method: 'POST', token, body: JSON.stringify({ code }) });

const redeem = (code: string) => JSON.stringify({ code, relationship: 'PARENT' });

/** A pairing code for a student of a tenant (the fixture's student of the fixture's tenant by default). */
async function pairingCode(
  t: TenantFixture = tenant,
  studentUserId: string = student.userId,
): Promise<string> {
  const res = await call(h, {
    path: `/tenants/${t.tenantId}/students/${studentUserId}/pairing-codes`,
    method: 'POST',
    token: t.owner.token,
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { code: string } }).data.code;
}

/** The tenant's OWNER invites an address; answers the invitation's id. */
async function invite(email = `${unique('invitee')}@example.test`): Promise<string> {
  const res = await call(h, {
    path: `/tenants/${tenant.tenantId}/invitations`,
    method: 'POST',
    token: tenant.owner.token,
    body: JSON.stringify({ email, role: 'STUDENT' }),
  });
  expect(res.status).toBe(201);
  return (await jsonOf(res)).data.invitationId;
}

/** The tenant's OWNER offers it to a membership. */
const offerTransfer = (t: TenantFixture, toMembershipId: string) =>
  call(h, {
    path: `/tenants/${t.tenantId}/ownership-transfers`,
    method: 'POST',
    token: t.owner.token,
    body: JSON.stringify({ toMembershipId }),
  });

/** A public address as an IP: accepted at registration, never sent to (no delivery worker runs here). */
const hook = (url = 'https://93.184.215.14/hooks') => JSON.stringify({ url, events: ['*'] });

/** The OWNER of a new tenant registers an endpoint. */
async function registerHook(t: TenantFixture): Promise<Response> {
  return call(h, {
    path: `/tenants/${t.tenantId}/webhooks`,
    method: 'POST',
    token: t.owner.token,
    body: hook(),
  });
}

/** How to make the service answer each code. A new code without a way to produce it fails to compile. */
const TRIGGERS = {
  VALIDATION_FAILED: () => call(h, { path: '/admin/tenants?limit=0', token: admin.token }),
  INVALID_JSON: () =>
    call(h, { path: '/admin/tenants', method: 'POST', token: admin.token, body: '{"name":' }),
  TENANT_ID_MISMATCH: () =>
    call(h, { path: memberships(), token: tenant.owner.token, headers: { 'x-tenant-id': MISSING } }),
  UNAUTHENTICATED: () => call(h, { path: '/me' }),
  SUPER_ADMIN_REQUIRED: () => call(h, { path: '/admin/tenants', token: tenant.owner.token }),
  TENANT_ACCESS_DENIED: () => call(h, { path: `/tenants/${MISSING}/memberships`, token: tenant.owner.token }),
  INSUFFICIENT_ROLE: () => call(h, { path: memberships(), token: student.token }),
  ROLE_HIERARCHY_VIOLATION: async () => {
    const { actor: teacherAdmin } = await addMember(h, tenant.tenantId, 'ADMIN');
    return call(h, {
      path: memberships(),
      method: 'POST',
      token: teacherAdmin.token,
      body: JSON.stringify({ role: 'OWNER', userId: admin.userId }),
    });
  },
  TENANT_NOT_FOUND: () => call(h, { path: `/admin/tenants/${MISSING}`, token: admin.token }),
  MEMBERSHIP_NOT_FOUND: () => call(h, { path: `${memberships()}/${MISSING}`, token: tenant.owner.token }),
  USER_NOT_FOUND: () =>
    call(h, {
      path: memberships(),
      method: 'POST',
      token: tenant.owner.token,
      body: JSON.stringify({ role: 'STUDENT', userId: MISSING }),
    }),
  ROUTE_NOT_FOUND: () => call(h, { path: '/no/such/route', token: admin.token }),
  METHOD_NOT_ALLOWED: () => call(h, { path: '/admin/tenants', method: 'PUT', token: admin.token }),
  TENANT_SLUG_TAKEN: () =>
    call(h, {
      path: '/admin/tenants',
      method: 'POST',
      token: admin.token,
      body: JSON.stringify({ name: 'Again', slug: tenant.slug, owner: { userId: admin.userId } }),
    }),
  MEMBERSHIP_ALREADY_EXISTS: () =>
    call(h, {
      path: memberships(),
      method: 'POST',
      token: tenant.owner.token,
      body: JSON.stringify({ role: 'STUDENT', userId: student.userId }),
    }),
  LAST_OWNER: () =>
    call(h, {
      path: `${memberships()}/${tenant.ownerMembershipId}`,
      method: 'DELETE',
      token: tenant.owner.token,
    }),
  MEMBERSHIP_MANAGED_BY_DIRECTORY: async () => {
    const managed = await addMember(h, tenant.tenantId, 'STUDENT');
    await h.db
      .update(tenantMemberships)
      .set({ managedBy: 'scim' })
      .where(
        and(eq(tenantMemberships.tenantId, tenant.tenantId), eq(tenantMemberships.id, managed.membershipId)),
      );
    return call(h, {
      path: `${memberships()}/${managed.membershipId}`,
      method: 'DELETE',
      token: tenant.owner.token,
    });
  },
  SCIM_TOKEN_NOT_FOUND: () =>
    call(h, {
      path: `/tenants/${tenant.tenantId}/scim-tokens/${MISSING}`,
      method: 'DELETE',
      token: tenant.owner.token,
    }),
  SCIM_GROUP_NOT_FOUND: () =>
    call(h, {
      path: `/tenants/${tenant.tenantId}/scim-groups/${MISSING}/role`,
      method: 'PUT',
      token: tenant.owner.token,
      body: JSON.stringify({ role: 'TEACHER' }),
    }),
  TRANSFER_NOT_FOUND: () =>
    call(h, {
      path: `/tenants/${tenant.tenantId}/ownership-transfers/${MISSING}`,
      token: tenant.owner.token,
    }),
  TRANSFER_NOT_APPLICABLE: async () => {
    const t = await createTenantFixture(h);
    return offerTransfer(t, t.ownerMembershipId);
  },
  TRANSFER_ALREADY_PENDING: async () => {
    const t = await createTenantFixture(h);
    const nominee = await addMember(h, t.tenantId, 'TEACHER');
    expect((await offerTransfer(t, nominee.membershipId)).status).toBe(201);
    return offerTransfer(t, nominee.membershipId);
  },
  TRANSFER_NOT_PENDING: async () => {
    const t = await createTenantFixture(h);
    const nominee = await addMember(h, t.tenantId, 'TEACHER');
    const { data } = await jsonOf(await offerTransfer(t, nominee.membershipId));
    const cancel = {
      path: `/tenants/${t.tenantId}/ownership-transfers/${data.transferId}/cancel`,
      method: 'POST',
      token: t.owner.token,
    };
    expect((await call(h, cancel)).status).toBe(200);
    return call(h, cancel);
  },
  ROSTER_IMPORT_NOT_FOUND: () =>
    call(h, { path: `/tenants/${tenant.tenantId}/roster-imports/${MISSING}`, token: tenant.owner.token }),
  ROSTER_INVALID: () =>
    call(h, {
      path: `/tenants/${tenant.tenantId}/roster-imports`,
      method: 'POST',
      token: tenant.owner.token,
      body: JSON.stringify({ rows: [{ email: 'not an address' }] }),
    }),
  ROSTER_REMOVAL_LIMIT: () =>
    call(h, {
      path: `/tenants/${tenant.tenantId}/roster-imports?mode=sync&maxRemovalPercent=0`,
      method: 'POST',
      token: tenant.owner.token,
      body: JSON.stringify({ rows: [{ email: tenant.owner.email }] }),
    }),
  JOIN_CODE_NOT_FOUND: () => join(student.token, 'ABCD-EFGH'),
  JOIN_REQUEST_NOT_FOUND: () =>
    call(h, { path: `/me/join-requests/${MISSING}/cancel`, method: 'POST', token: student.token }),
  JOIN_BLOCK_NOT_FOUND: () =>
    call(h, {
      path: `/tenants/${tenant.tenantId}/join-blocks/${MISSING}`,
      method: 'DELETE',
      token: tenant.owner.token,
    }),
  JOIN_BLOCKED: async () => {
    const person = await createActor(h);
    await h.db.insert(joinBlocks).values({ tenantId: tenant.tenantId, userId: person.userId });
    return join(person.token, await joinCode());
  },
  DOMAIN_NOT_FOUND: () =>
    call(h, { path: `/tenants/${tenant.tenantId}/domains/${MISSING}`, token: tenant.owner.token }),
  DOMAIN_ALREADY_CLAIMED: async () => {
    const body = JSON.stringify({ domain: `${unique('codes')}.example.edu`, mode: 'join' });
    const add = () =>
      call(h, {
        path: `/tenants/${tenant.tenantId}/domains`,
        method: 'POST',
        token: tenant.owner.token,
        body,
      });
    await add();
    return add();
  },
  MEMBERSHIP_NOT_ACTIVE: async () => {
    const { actor, membershipId } = await addMember(h, tenant.tenantId, 'STUDENT');
    await h.db
      .update(tenantMemberships)
      .set({ suspendedAt: new Date() })
      .where(and(eq(tenantMemberships.tenantId, tenant.tenantId), eq(tenantMemberships.id, membershipId)));
    return join(actor.token, await joinCode());
  },
  JOIN_REQUEST_NOT_PENDING: async () => {
    const person = await createActor(h);
    const asked = await join(person.token, await joinCode({ requiresApproval: true }));
    const { joinRequestId } = ((await asked.json()) as { data: { joinRequestId: string } }).data;
    const cancel = { path: `/me/join-requests/${joinRequestId}/cancel`, method: 'POST', token: person.token };
    expect((await call(h, cancel)).status).toBe(200);
    return call(h, cancel);
  },
  INVITATION_NOT_FOUND: () =>
    call(h, { path: `/tenants/${tenant.tenantId}/invitations/${MISSING}`, token: tenant.owner.token }),
  INVITATION_ALREADY_PENDING: async () => {
    const email = `${unique('twice')}@example.test`;
    await invite(email);
    return call(h, {
      path: `/tenants/${tenant.tenantId}/invitations`,
      method: 'POST',
      token: tenant.owner.token,
      body: JSON.stringify({ email, role: 'TEACHER' }),
    });
  },
  INVITATION_NOT_PENDING: async () => {
    const revoke = {
      path: `/tenants/${tenant.tenantId}/invitations/${await invite()}/revoke`,
      method: 'POST',
      token: tenant.owner.token,
    };
    expect((await call(h, revoke)).status).toBe(200);
    return call(h, revoke);
  },
  INVITATION_EXPIRED: async () => {
    // Someone with a verified email who is not a member here: another tenant's OWNER.
    const invitee = (await createTenantFixture(h)).owner;
    const id = await invite(invitee.email);
    // Time driven, not waited for: the invitation's days have passed.
    await h.db.execute(`update invitations set expires_at = now() - interval '1 minute' where id = '${id}'`);
    return call(h, { path: `/me/invitations/${id}/accept`, method: 'POST', token: invitee.token });
  },
  STUDENT_NOT_FOUND: () =>
    call(h, {
      path: `/tenants/${tenant.tenantId}/students/${tenant.owner.userId}/pairing-codes`,
      method: 'POST',
      token: tenant.owner.token,
    }),
  GUARDIAN_LINK_NOT_FOUND: () =>
    call(h, {
      path: `/tenants/${tenant.tenantId}/guardian-links/${MISSING}`,
      method: 'DELETE',
      token: tenant.owner.token,
    }),
  PAIRING_CODE_NOT_FOUND: () =>
    call(h, { path: '/me/guardian-links', method: 'POST', token: admin.token, body: redeem('AAAAAAAA') }),
  GUARDIAN_LINK_ALREADY_EXISTS: async () => {
    const guardian = await createActor(h);
    const first = await call(h, {
      path: '/me/guardian-links',
      method: 'POST',
      token: guardian.token,
      body: redeem(await pairingCode()),
    });
    expect(first.status).toBe(201);
    return call(h, {
      path: '/me/guardian-links',
      method: 'POST',
      token: guardian.token,
      body: redeem(await pairingCode()),
    });
  },
  GUARDIAN_LIMIT_REACHED: async () => {
    const t = await createTenantFixture(h);
    const child = await addMember(h, t.tenantId, 'STUDENT');
    const codeOf = () => pairingCode(t, child.actor.userId);
    for (let i = 0; i < GUARDIANS_PER_STUDENT_MAX; i++) {
      const guardian = await createActor(h);
      const linked = await call(h, {
        path: '/me/guardian-links',
        method: 'POST',
        token: guardian.token,
        body: redeem(await codeOf()),
      });
      expect(linked.status).toBe(201);
    }
    const last = await createActor(h);
    return call(h, {
      path: '/me/guardian-links',
      method: 'POST',
      token: last.token,
      body: redeem(await codeOf()),
    });
  },
  GUARDIAN_OF_SELF: async () =>
    call(h, {
      path: '/me/guardian-links',
      method: 'POST',
      token: student.token,
      body: redeem(await pairingCode()),
    }),
  GUARDIAN_INVITATION_NOT_FOUND: () =>
    call(h, {
      path: `/tenants/${tenant.tenantId}/guardian-invitations/${MISSING}/revoke`,
      method: 'POST',
      token: tenant.owner.token,
    }),
  GUARDIAN_INVITATION_ALREADY_PENDING: async () => {
    const invite = () =>
      call(h, {
        path: `/tenants/${tenant.tenantId}/students/${student.userId}/guardian-invitations`,
        method: 'POST',
        token: tenant.owner.token,
        body: JSON.stringify({ email: 'twice.invited@example.test', relationship: 'PARENT' }),
      });
    expect((await invite()).status).toBe(201);
    return invite();
  },
  WEBHOOK_NOT_FOUND: () =>
    call(h, { path: `/tenants/${tenant.tenantId}/webhooks/${MISSING}`, token: tenant.owner.token }),
  WEBHOOK_DELIVERY_NOT_FOUND: async () => {
    const t = await createTenantFixture(h);
    const { data } = await jsonOf(await registerHook(t));
    return call(h, {
      path: `/tenants/${t.tenantId}/webhooks/${data.webhookId}/deliveries/${MISSING}/retry`,
      method: 'POST',
      token: t.owner.token,
    });
  },
  WEBHOOK_LIMIT_REACHED: async () => {
    const t = await createTenantFixture(h);
    for (let i = 0; i < WEBHOOKS_PER_OWNER_MAX; i++) expect((await registerHook(t)).status).toBe(201);
    return registerHook(t);
  },
  // Loopback: refused while private networks are not allowed (the default, as in production).
  WEBHOOK_TARGET_REFUSED: () =>
    call(h, {
      path: `/tenants/${tenant.tenantId}/webhooks`,
      method: 'POST',
      token: tenant.owner.token,
      body: hook('http://127.0.0.1/x'),
    }),
  IDEMPOTENCY_KEY_IN_FLIGHT: async () => {
    // Another request holds the key (claimed, not completed): what a request on another process looks like.
    const key = randomUUID();
    await claimKey(h.db, admin.userId, key, randomUUID());
    return call(h, {
      path: '/admin/tenants',
      method: 'POST',
      token: admin.token,
      headers: { 'idempotency-key': key },
      body: newTenant(),
    });
  },
  IDEMPOTENCY_KEY_REUSED: async () => {
    const key = randomUUID();
    const first = await call(h, {
      path: '/admin/tenants',
      method: 'POST',
      token: admin.token,
      headers: { 'idempotency-key': key },
      body: newTenant(),
    });
    expect(first.status).toBe(201);
    return call(h, {
      path: '/admin/tenants',
      method: 'POST',
      token: admin.token,
      headers: { 'idempotency-key': key },
      body: newTenant(),
    });
  },
  PRECONDITION_FAILED: () =>
    call(h, {
      path: `${memberships()}/${teacherMembershipId}`,
      method: 'PATCH',
      token: tenant.owner.token,
      body: JSON.stringify({ role: 'STUDENT' }),
      headers: { 'if-match': '"99"' },
    }),
  PAYLOAD_TOO_LARGE: () =>
    call(h, {
      path: '/admin/tenants',
      method: 'POST',
      token: admin.token,
      body: JSON.stringify({ name: 'x'.repeat(110 * 1024) }),
    }),
  UNSUPPORTED_MEDIA_TYPE: () =>
    fetch(`${h.baseUrl}/admin/tenants`, {
      method: 'POST',
      body: 'name=x',
      headers: {
        authorization: `Bearer ${admin.token}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
    }),
  RATE_LIMITED: async () => {
    await call(limited, { path: '/me', token: admin.token });
    return call(limited, { path: '/me', token: admin.token });
  },
  // The tenant's one write is in flight: its next write is refused at once, the others' are not.
  TENANT_BUSY: async () => {
    await crowding.acquire(`tenant:${tenant.tenantId}`, 'write');
    return call(crowded, {
      path: memberships(),
      method: 'POST',
      token: tenant.owner.token,
      body: JSON.stringify({ role: 'STUDENT', email: `${unique('busy')}@example.test` }),
    });
  },
  // The process's one slot is held, by anyone: every request is refused at once.
  SERVICE_OVERLOADED: async () => {
    await filling.acquire('caller:somebody-else', 'read');
    return call(full, { path: '/me', token: admin.token });
  },
  INTERNAL_ERROR: () => call(broken, { path: '/me', token: admin.token }),
  SERVICE_UNAVAILABLE: () => call(unreachable, { path: '/me', token: admin.token }),
} satisfies Record<ResponseCode, () => Promise<Response>>;

describe('every ResponseCode, produced over HTTP', () => {
  it.each(RESPONSE_CODES)('%s', async (code) => {
    const res = await TRIGGERS[code]();
    const text = await res.text();
    expect(res.status).toBe(HTTP_STATUS[code]);
    const body = JSON.parse(text);
    expect(body).toEqual({
      success: false,
      error: {
        code,
        message: expect.any(String),
        requestId: res.headers.get('x-request-id'),
        ...(code === 'VALIDATION_FAILED' || code === 'ROSTER_INVALID' ? { details: expect.any(Array) } : {}),
      },
    });
    // What says when to come back does.
    if (HTTP_STATUS[code] === 429 || HTTP_STATUS[code] === 503) {
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // No stack trace, SQL, or driver message ever leaves the service.
    expect(text).not.toMatch(/boom|\.ts:\d|\bat \w+ \(|select |ECONNREFUSED|postgres/i);
  });
});

describe('envelope and request ids', () => {
  it('wraps successes as { success, data } and lists with meta', async () => {
    const one = await jsonOf(
      await call(h, { path: `/admin/tenants/${tenant.tenantId}`, token: admin.token }),
    );
    expect(Object.keys(one as object)).toEqual(['success', 'data']);
    await createTenantFixture(h);
    const list = await jsonOf(await call(h, { path: '/admin/tenants?limit=1', token: admin.token }));
    expect(list).toEqual({
      success: true,
      data: [expect.any(Object)],
      meta: { nextCursor: expect.any(String) },
    });
  });

  it('echoes a sane x-request-id and replaces an unsafe one', async () => {
    const sane = await call(h, {
      path: '/me',
      token: admin.token,
      headers: { 'x-request-id': 'trace-123.abc' },
    });
    expect(sane.headers.get('x-request-id')).toBe('trace-123.abc');
    const unsafe = await call(h, { path: '/me', headers: { 'x-request-id': 'bad id <script>' } });
    const id = unsafe.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await jsonOf(unsafe)).error.requestId).toBe(id);
  });

  it('leaves the health routes bare, with a request id all the same', async () => {
    const live = await call(h, { path: '/health/live' });
    expect(await jsonOf(live)).toEqual({ status: 'ok' });
    expect(live.headers.get('x-request-id')).toBeTruthy();
    expect(await jsonOf(await call(h, { path: '/health/ready' }))).toEqual({ status: 'ok' });
    const report = await jsonOf(await call(h, { path: '/health' }));
    expect(report).toEqual({
      status: 'ok',
      checks: { database: { status: 'up', latencyMs: expect.any(Number) } },
      version: 'test',
      uptimeSeconds: expect.any(Number),
    });
  });

  it('names the allowed methods on a 405', async () => {
    const res = await call(h, {
      path: `/admin/tenants/${tenant.tenantId}`,
      method: 'POST',
      token: admin.token,
      body: '{}',
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, PATCH, DELETE');
  });

  it('answers a path that cannot be decoded with VALIDATION_FAILED', async () => {
    const res = await call(h, { path: '/admin/tenants/%E0%A4%A', token: admin.token });
    expect(res.status).toBe(400);
    expect((await jsonOf(res)).error.code).toBe('VALIDATION_FAILED');
  });

  it('checks the token before reading the body', async () => {
    const res = await call(h, { path: '/admin/tenants', method: 'POST', body: '{"broken' });
    expect(res.status).toBe(401);
  });
});

describe('when the database is down', () => {
  it('keeps /health/live at 200 and turns readiness and the report to 503', async () => {
    expect((await call(unreachable, { path: '/health/live' })).status).toBe(200);
    const ready = await call(unreachable, { path: '/health/ready' });
    expect(ready.status).toBe(503);
    expect(await jsonOf(ready)).toEqual({ status: 'unavailable' });
    const report = await call(unreachable, { path: '/health' });
    expect(report.status).toBe(503);
    expect(await jsonOf(report)).toMatchObject({
      status: 'degraded',
      checks: { database: { status: 'down' } },
    });
  });
});

describe('docs', () => {
  it('serves the OpenAPI document and Swagger UI with its own assets', async () => {
    const doc = await jsonOf(await call(h, { path: '/openapi.json' }));
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toContain('/admin/tenants/{tenantId}');
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    const page = await call(h, { path: '/docs/' });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('swagger-ui');
    const bundle = await call(h, { path: '/docs/swagger-ui-bundle.js' });
    expect(bundle.status).toBe(200);
  });
});
