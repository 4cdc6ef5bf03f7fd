import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { type SQL, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDevToken } from '../../src/auth/sign-token.js';
import { createSuperAdmin, unique } from '../support/factories.js';
import { startTestServer, TEST_SECRET, type TestServer } from '../support/harness.js';
import type { Json } from '../support/json.js';
import { insertEndpoint } from '../support/webhook-delivery-fixtures.js';

// The bench judges the service against a floor (bench/bare-server.ts) that answers its requests in
// fewer round trips. A floor that answered differently, or skipped a rule, would make that
// comparison a lie: here both run on one database and get the same requests, and must give the
// same answers, refusals included. A floor that wrote less than the service would be as much of a
// lie: its writes must leave the same rows, the audit event and the webhook outbox's deliveries
// included. What the bench never sends, the floor answers 501.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

type Answer = { status: number; etag: string | null; body: Json };
const SIDES = ['service', 'floor'] as const;
type Side = (typeof SIDES)[number];
const uniqueEmail = () => `${unique('invited')}@example.test`;
const members = (tenantId: string) => `/tenants/${tenantId}/memberships`;

let h: TestServer;
type Floor = { child: ChildProcess; baseUrl: string; exit: Promise<number | null> };
let floor: Floor;

/** The floor as the bench runs it: its own process, on the test's database and secret. */
async function startFloor(databaseUrl: string): Promise<Floor> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/bare-server.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', AUTH_JWT_SECRET: TEST_SECRET, BARE_DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exit.then((code) => reject(new Error(`the floor exited with ${code}:\n${output}`)));
  });
  return { child, baseUrl, exit };
}

async function call(
  side: Side,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
  more: Record<string, string> = {},
) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...more };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const base = side === 'service' ? h.baseUrl : floor.baseUrl;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const res = await fetch(`${base}${path}`, { method, headers, body: payload });
  const text = await res.text();
  return { status: res.status, etag: res.headers.get('etag'), body: text ? JSON.parse(text) : null };
}

const both = async (method: string, path: string, token?: string, body?: unknown) => ({
  service: await call('service', method, path, token, body),
  floor: await call('floor', method, path, token, body),
});

/** The same answer from both, and a successful one (a shared refusal would prove nothing here). */
async function expectSame(method: string, path: string, token: string): Promise<Answer> {
  const answers = await both(method, path, token);
  expect(answers.floor, `${method} ${path}`).toEqual(answers.service);
  expect(answers.service.status).toBeLessThan(300);
  return answers.service;
}

/** A request both must refuse, and the status and code they must refuse it with. */
type Refused = [status: number, code: string, method: string, path: string, token?: string, body?: unknown];

async function expectRefusals(cases: Refused[]) {
  for (const [status, code, method, path, token, body] of cases) {
    const answers = await both(method, path, token, body);
    const seen = (a: Answer) => [a.status, a.body?.error?.code];
    expect({ service: seen(answers.service), floor: seen(answers.floor) }, `${method} ${path}`).toEqual({
      service: [status, code],
      floor: [status, code],
    });
  }
}

type Person = { userId: string; token: string };

/** A user made by signing in to the service (the floor creates nobody), with or without a name. */
async function signIn(claims: { name?: string; email?: string } = {}): Promise<Person> {
  const token = await signDevToken(TEST_SECRET, { sub: unique('sub'), ...claims, emailVerified: true });
  const me = await call('service', 'GET', '/me', token);
  if (me.status !== 200) throw new Error(`sign-in answered ${me.status}`);
  return { userId: me.body.data.user.userId, token };
}

/** A write of the setup, through the service; its answer's data. */
async function setUp(path: string, token: string, body: unknown): Promise<Json> {
  const answer = await call('service', 'POST', path, token, body);
  if (answer.status !== 201)
    throw new Error(`setup answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.data;
}

async function newTenant(owner: Person): Promise<string> {
  const slug = unique('floor');
  const body = { name: `Tenant ${slug}`, slug, owner: { userId: owner.userId } };
  return (await setUp('/admin/tenants', f.superAdmin, body)).tenantId;
}

/** The tenant's one OWNER membership, as the service lists it. */
const ownerOf = async (tenantId: string, by: Person): Promise<string> =>
  (await call('service', 'GET', `${members(tenantId)}?role=OWNER`, by.token)).body.data[0].tenantMembershipId;

async function join(
  tenantId: string,
  by: Person,
  role: string,
  who: Person | { email: string; displayName?: string },
) {
  const body = 'userId' in who ? { role, userId: who.userId } : { role, ...who };
  return (await setUp(members(tenantId), by.token, body)).tenantMembershipId as string;
}

type Fixture = Record<'a' | 'b' | 'superAdmin', string> &
  Record<'owner' | 'admin' | 'student' | 'stranger' | 'both' | 'newcomer', Person> & {
    ids: Record<'owner' | 'admin' | 'invited' | 'nameless' | 'ownerB' | 'inB', string>;
    /** The platform's webhook endpoint, and the one of tenant a that wants the bench's writes. */
    hooks: Record<'platform' | 'a', string>;
  };
const f = {} as Fixture;

const rowsOf = async (query: SQL): Promise<Json[]> => {
  const result = await h.db.execute(query);
  return (Array.isArray(result) ? result : (result as { rows: Json[] }).rows) as Json[];
};

/**
 * What the changes of one membership of the tenant wrote: its audit events in the order of the
 * tenant's counter, each with the webhook deliveries queued for it, by endpoint.
 */
const writtenFor = (tenantId: string, membershipId: string) =>
  rowsOf(sql`
    select e.tenant_id, e.sequence::int, e.action, e.actor_user_id, e.actor_subject, e.actor_is_super_admin,
      e.target_type, e.target_id, e.before, e.after, e.request_id,
      e.occurred_at = date_trunc('milliseconds', e.occurred_at) as in_milliseconds,
      coalesce((
        select jsonb_agg(jsonb_build_object('endpointId', d.endpoint_id, 'position', d.position,
          'status', d.status, 'attempts', d.attempts, 'due', d.next_attempt_at <= now(),
          'lastAttemptAt', d.last_attempt_at, 'lastStatusCode', d.last_status_code, 'lastError', d.last_error,
          'lastResponse', d.last_response, 'deliveredAt', d.delivered_at) order by d.endpoint_id)
        from webhook_deliveries d where d.audit_event_id = e.id), '[]') as deliveries
    from audit_events e where e.tenant_id = ${tenantId}::uuid and e.target_id = ${membershipId}::uuid
    order by e.sequence`);

/** The one event of the tenant's membership with this action. */
async function eventOf(tenantId: string, membershipId: string, action: string): Promise<Json> {
  const events = (await writtenFor(tenantId, membershipId)).filter((event) => event.action === action);
  expect(events, `${action} of ${membershipId}`).toHaveLength(1);
  return events[0];
}

const eventCount = async (tenantId: string) =>
  (await rowsOf(sql`select count(*)::int as n from audit_events where tenant_id = ${tenantId}::uuid`))[0].n;

/** A membership as an answer or an event shows it, without what differs between two of them. */
const withoutIdAndTimes = ({ tenantMembershipId, createdAt, updatedAt, ...membership }: Json) => ({
  ...membership,
  kept: [tenantMembershipId, createdAt, updatedAt].map((v) => typeof v),
});

/** An event as both sides must write it: all but ids, times, sequence numbers and request ids. */
const comparable = ({ sequence, target_id, request_id, before, after, deliveries, ...event }: Json) => ({
  ...event,
  kept: [sequence, target_id, request_id].map((v) => typeof v),
  before: before && withoutIdAndTimes(before),
  after: after && withoutIdAndTimes(after),
  deliveries: deliveries.map(({ position, ...delivery }: Json) => ({ ...delivery, kept: typeof position })),
});

beforeAll(async () => {
  h = await startTestServer();
  if (!h.database.url) throw new Error('this suite needs PostgreSQL (TEST_DATABASE_URL)');
  floor = await startFloor(h.database.url);
  f.superAdmin = (await createSuperAdmin(h)).token;
  f.owner = await signIn({ name: 'Olga Owner', email: `${unique('olga')}@example.test` });
  f.admin = await signIn({ name: 'Adam Admin' });
  f.student = await signIn({ name: 'Ada Kowalczyk' });
  f.stranger = await signIn({ name: 'Stan Stranger' });
  f.both = await signIn({ name: 'Bo Both' });
  f.newcomer = await signIn({ name: 'Nina Newcomer', email: `${unique('nina')}@example.test` });
  const nameless = await signIn({ email: `${unique('nameless')}@example.test` });
  const ownerB = await signIn({ name: 'Bea Owner' });
  [f.a, f.b] = [await newTenant(f.owner), await newTenant(ownerB)];
  f.ids = {
    owner: await ownerOf(f.a, f.owner),
    admin: await join(f.a, f.owner, 'ADMIN', f.admin),
    invited: await join(f.a, f.owner, 'STUDENT', { email: uniqueEmail(), displayName: 'Marta Kowalczyk' }),
    nameless: await join(f.a, f.owner, 'TEACHER', nameless),
    ownerB: await ownerOf(f.b, ownerB),
    inB: await join(f.b, ownerB, 'TEACHER', f.both),
  };
  await join(f.a, f.owner, 'STUDENT', f.student);
  await join(f.a, f.admin, 'STUDENT', await signIn({ name: 'Ann 100% Kowal' }));
  await join(f.a, f.owner, 'ADMIN', await signIn({ name: 'Piotr KOWALSKI' }));
  await join(f.a, f.owner, 'STUDENT', { email: uniqueEmail() });
  await join(f.a, f.owner, 'TEACHER', f.both);
  // Where a change of tenant a is queued for delivery: a platform endpoint for every event and one
  // of the tenant for the two actions of the bench's writes; not to one of the tenant for other
  // actions, nor to a disabled one, nor to another tenant's.
  const hook = { url: 'https://hooks.example.test/bench-floor' };
  const wanted = ['membership.created', 'membership.removed'];
  f.hooks = {
    platform: (await insertEndpoint(h.db, { ...hook, tenantId: null, events: ['*'] })).id,
    a: (await insertEndpoint(h.db, { ...hook, tenantId: f.a, events: wanted })).id,
  };
  await insertEndpoint(h.db, { ...hook, tenantId: f.a, events: ['membership.role_changed'] });
  await insertEndpoint(h.db, { ...hook, tenantId: f.a, events: ['*'], enabled: false });
  await insertEndpoint(h.db, { ...hook, tenantId: f.b, events: ['*'] });
});

afterAll(async () => {
  floor?.child.kill('SIGTERM');
  await floor?.exit;
  await h?.close();
});

describe('the bench floor answers as the service does', () => {
  it('GET one membership: with a name, invited with a name only the tenant gave, without any', async () => {
    const names = [];
    for (const id of [f.ids.owner, f.ids.admin, f.ids.invited, f.ids.nameless]) {
      const answer = await expectSame('GET', `${members(f.a)}/${id}`, f.owner.token);
      expect(answer.etag).toBe('"1"');
      names.push(answer.body.data.user.displayName);
    }
    expect(names).toEqual(['Olga Owner', 'Adam Admin', 'Marta Kowalczyk', null]);
  });

  it('list pages: the first, by cursor, filtered by role and by search, as an ADMIN and a super administrator', async () => {
    const first = await expectSame('GET', members(f.a), f.owner.token);
    expect(first.body.data.length).toBeGreaterThan(5);
    await expectSame('GET', members(f.a), f.superAdmin);
    await expectSame('GET', members(f.a), f.admin.token);
    for (const query of [
      'limit=3',
      'role=ADMIN',
      'role=STUDENT&limit=1',
      'q=kowal',
      'q=KOWAL&limit=1',
      'q=100%25',
      'q=%25',
      'q=nobody',
    ]) {
      let path = `${members(f.a)}?${query}`;
      // Every page to the end: the cursors the floor gives must be the service's.
      for (let page = 0; page < 20; page++) {
        const answer = await expectSame('GET', path, f.owner.token);
        const next = answer.body.meta.nextCursor;
        if (next === null) break;
        path = `${members(f.a)}?${query}&cursor=${next}`;
      }
    }
    const found = (await call('floor', 'GET', `${members(f.a)}?q=kowal`, f.owner.token)).body.data;
    const shown = ['Marta Kowalczyk', 'Ada Kowalczyk', 'Ann 100% Kowal', 'Piotr KOWALSKI'];
    expect(found.map((m: Json) => m.user.displayName)).toEqual(shown);
  });

  it('GET /me: a user of two tenants, of none, a super administrator', async () => {
    const me = await expectSame('GET', '/me', f.both.token);
    expect(me.body.data.memberships).toHaveLength(2);
    await expectSame('GET', '/me', f.stranger.token);
    await expectSame('GET', '/me', f.superAdmin);
  });

  it('POST then DELETE a membership: the same answers, and the same audit events and outbox rows', async () => {
    const body = { role: 'STUDENT', userId: f.newcomer.userId };
    const made = {} as Record<Side, Answer>;
    const written = {} as Record<Side, Json[]>;
    const requestIds = {} as Record<Side, string>;
    for (const side of SIDES) {
      requestIds[side] = unique(`bench-${side}`);
      const traced = { 'x-request-id': requestIds[side] };
      made[side] = await call(side, 'POST', members(f.a), f.owner.token, body, traced);
      const id = made[side].body?.data?.tenantMembershipId;
      const removed = await call(side, 'DELETE', `${members(f.a)}/${id}`, f.owner.token, undefined, traced);
      expect(removed).toEqual({ status: 204, etag: null, body: null });
      written[side] = await writtenFor(f.a, id);
    }
    const same = ({ body, ...rest }: Answer) => ({ ...rest, data: withoutIdAndTimes(body.data) });
    expect(made.service.status).toBe(201);
    expect(same(made.floor)).toEqual(same(made.service));

    // Each side's two events: the membership as its answer showed it, created then removed, by the
    // caller, on the request, queued for the platform's endpoint and the tenant's that wants them.
    const hooks = [f.hooks.platform, f.hooks.a].sort();
    for (const side of SIDES) {
      const shown = made[side].body.data;
      const common = {
        tenant_id: f.a,
        actor_user_id: f.owner.userId,
        actor_is_super_admin: false,
        target_type: 'membership',
        target_id: shown.tenantMembershipId,
        request_id: requestIds[side],
        in_milliseconds: true,
      };
      expect(written[side], side).toMatchObject([common, common]);
      expect(
        written[side].map((event) => [event.action, event.before, event.after]),
        side,
      ).toEqual([
        ['membership.created', null, shown],
        ['membership.removed', shown, null],
      ]);
      expect(written[side].map((event) => event.deliveries.map((d: Json) => d.endpointId))).toEqual([
        hooks,
        hooks,
      ]);
    }
    expect(written.floor.map(comparable)).toEqual(written.service.map(comparable));
    // Numbered on the tenant's counter without a gap, and queued in that order, on both sides.
    const events = [...written.service, ...written.floor];
    const first = events[0].sequence;
    expect(events.map((event) => event.sequence)).toEqual([first, first + 1, first + 2, first + 3]);
    for (const hook of hooks) {
      const positions = events.map(
        (event) => event.deliveries.find((d: Json) => d.endpointId === hook).position,
      );
      expect(positions).toEqual([...positions].sort((x, y) => x - y));
    }
  });
});

describe('the bench floor refuses as the service does', () => {
  it('a caller without rights: a stranger, a TEACHER, a STUDENT, no token or a bad one', async () => {
    const one = `${members(f.a)}/${f.ids.admin}`;
    const post = { role: 'STUDENT', userId: f.newcomer.userId };
    const cursor = Buffer.from(`v1:${f.ids.owner}`).toString('base64url');
    const requests = [
      ['GET', members(f.a)],
      ['GET', `${members(f.a)}?cursor=${cursor}`],
      ['GET', `${members(f.a)}?role=ADMIN`],
      ['GET', `${members(f.a)}?q=kowal`],
      ['GET', one],
      ['POST', members(f.a), post],
      ['DELETE', one],
    ] as const;
    const wrongSecret = await signDevToken(`${TEST_SECRET}-not`, { sub: unique('sub') });
    const [stranger, teacher, student] = [f.stranger.token, f.both.token, f.student.token];
    await expectRefusals([
      ...requests.map(([m, path, body]): Refused => [403, 'TENANT_ACCESS_DENIED', m, path, stranger, body]),
      ...[teacher, student].flatMap((token) =>
        requests.map(([m, path, body]): Refused => [403, 'INSUFFICIENT_ROLE', m, path, token, body]),
      ),
      ...[undefined, 'not-a-token', wrongSecret].flatMap((token): Refused[] => [
        [401, 'UNAUTHENTICATED', 'GET', members(f.a), token],
        [401, 'UNAUTHENTICATED', 'GET', '/me', token],
      ]),
    ]);
  });

  it('what the bench never sends, malformed requests included, the floor does not answer: 501', async () => {
    const one = `${members(f.a)}/${f.ids.admin}`;
    const cases: [method: string, path: string, body?: unknown, headers?: Record<string, string>][] = [
      ['GET', `${members(f.a)}?limit=0`],
      ['GET', `${members(f.a)}?q=a%0Ab`],
      ['GET', `${members(f.a)}?cursor=not-a-cursor`],
      ['GET', `${members(f.a)}?sort=email`],
      ['GET', `${members(f.a)}?status=ACTIVE`],
      ['GET', `${members(f.a)}?includeTotal=true`],
      ['GET', members('not-a-uuid')],
      ['GET', `${members(f.a)}/not-a-uuid`],
      ['POST', members(f.a), { role: 'STUDENT', email: uniqueEmail() }],
      ['POST', members(f.a), { role: 'STUDENT', userId: f.newcomer.userId, displayName: 'x' }],
      ['POST', members(f.a), { role: 'NOBODY', userId: f.newcomer.userId }],
      ['PATCH', one, { role: 'TEACHER' }],
      ['DELETE', one, undefined, { 'if-match': '"1"' }],
      ['GET', '/tenants'],
    ];
    for (const [method, path, body, headers] of cases) {
      const answer = await call('floor', method, path, f.owner.token, body, headers);
      expect([answer.status, answer.body?.error?.code], `${method} ${path}`).toEqual([
        501,
        'NOT_IMPLEMENTED',
      ]);
    }
  });

  it('a membership missing or of another tenant is not found; a tenant, to a super administrator only', async () => {
    const nowhere = members(randomUUID());
    const post = { role: 'STUDENT', userId: f.newcomer.userId };
    await expectRefusals([
      ...[randomUUID(), f.ids.inB, f.ids.ownerB].flatMap((id): Refused[] => [
        [404, 'MEMBERSHIP_NOT_FOUND', 'GET', `${members(f.a)}/${id}`, f.owner.token],
        [404, 'MEMBERSHIP_NOT_FOUND', 'DELETE', `${members(f.a)}/${id}`, f.owner.token],
      ]),
      [404, 'TENANT_NOT_FOUND', 'GET', nowhere, f.superAdmin],
      [404, 'TENANT_NOT_FOUND', 'POST', nowhere, f.superAdmin, post],
      [403, 'TENANT_ACCESS_DENIED', 'GET', nowhere, f.owner.token],
    ]);
  });

  it('the rules of a write: last OWNER, role hierarchy, existing member, unknown user', async () => {
    const events = await eventCount(f.a);
    const [owner, a] = [`${members(f.a)}/${f.ids.owner}`, members(f.a)];
    const [asOwner, again] = [
      { role: 'OWNER', userId: f.newcomer.userId },
      { role: 'ADMIN', userId: f.student.userId },
    ];
    await expectRefusals([
      [409, 'LAST_OWNER', 'DELETE', owner, f.owner.token],
      [409, 'LAST_OWNER', 'DELETE', owner, f.superAdmin],
      [403, 'ROLE_HIERARCHY_VIOLATION', 'DELETE', owner, f.admin.token],
      [403, 'ROLE_HIERARCHY_VIOLATION', 'POST', a, f.admin.token, asOwner],
      [409, 'MEMBERSHIP_ALREADY_EXISTS', 'POST', a, f.owner.token, again],
      [404, 'USER_NOT_FOUND', 'POST', a, f.owner.token, { role: 'STUDENT', userId: randomUUID() }],
    ]);
    expect(await eventCount(f.a), 'a refused write records nothing').toBe(events);
  });

  it('memberships not ACTIVE: shown with their status and dates, refused as callers, not counted as OWNERs', async () => {
    const c = await newTenant(f.newcomer);
    const owner = await ownerOf(c, f.newcomer);
    const [admin, otherOwner] = [await signIn({ name: 'Sue Spended' }), await signIn({ name: 'Ona Owner' })];
    const ids = {
      admin: await join(c, f.newcomer, 'ADMIN', admin),
      owner: await join(c, f.newcomer, 'OWNER', otherOwner),
      ended: await join(c, f.newcomer, 'STUDENT', await signIn({ name: 'Ed Ended' })),
    };
    for (const id of [ids.admin, ids.owner]) {
      const answer = await call('service', 'POST', `${members(c)}/${id}/suspend`, f.newcomer.token, {
        reason: 'r',
      });
      expect(answer.status).toBe(200);
    }
    const ended = { startsAt: '2020-01-01T00:00:00Z', endsAt: '2021-01-01T00:00:00Z' };
    expect(
      (await call('service', 'PATCH', `${members(c)}/${ids.ended}`, f.newcomer.token, ended)).status,
    ).toBe(200);
    const statuses = [];
    for (const id of [ids.admin, ids.ended])
      statuses.push((await expectSame('GET', `${members(c)}/${id}`, f.newcomer.token)).body.data.status);
    expect(statuses).toEqual(['SUSPENDED', 'ENDED']);
    await expectSame('GET', members(c), f.newcomer.token);
    expect((await expectSame('GET', '/me', admin.token)).body.data.memberships[0].status).toBe('SUSPENDED');
    await expectRefusals([
      [403, 'TENANT_ACCESS_DENIED', 'GET', members(c), admin.token],
      [403, 'TENANT_ACCESS_DENIED', 'DELETE', `${members(c)}/${ids.ended}`, admin.token],
      // The other OWNER is suspended: this one is the last ACTIVE one.
      [409, 'LAST_OWNER', 'DELETE', `${members(c)}/${owner}`, f.newcomer.token],
    ]);
    // Removed by the floor, each is recorded as the API showed it: its status, dates and reason.
    for (const id of [ids.admin, ids.ended]) {
      const shown = (await expectSame('GET', `${members(c)}/${id}`, f.newcomer.token)).body.data;
      expect((await call('floor', 'DELETE', `${members(c)}/${id}`, f.newcomer.token)).status).toBe(204);
      const removed = await eventOf(c, id, 'membership.removed');
      expect(removed).toMatchObject({
        after: null,
        actor_user_id: f.newcomer.userId,
        deliveries: [{ endpointId: f.hooks.platform, status: 'PENDING', attempts: 0 }],
      });
      expect(removed.before).toEqual(shown);
    }
  });

  it('an OWNER may go while another remains, but not by an ADMIN; then the last may not', async () => {
    const c = await newTenant(f.newcomer);
    const second = await join(c, f.newcomer, 'OWNER', await signIn({ name: 'Otto Owner' }));
    const admin = await signIn({ name: 'Ida Admin' });
    await join(c, f.newcomer, 'ADMIN', admin);
    // Not the last OWNER: only the hierarchy stands in the way.
    await expectRefusals([
      [403, 'ROLE_HIERARCHY_VIOLATION', 'DELETE', `${members(c)}/${second}`, admin.token],
    ]);
    const shown = (await expectSame('GET', `${members(c)}/${second}`, f.newcomer.token)).body.data;
    expect((await call('floor', 'DELETE', `${members(c)}/${second}`, f.newcomer.token)).status).toBe(204);
    expect((await eventOf(c, second, 'membership.removed')).before).toEqual(shown);
    const last = await ownerOf(c, f.newcomer);
    await expectRefusals([[409, 'LAST_OWNER', 'DELETE', `${members(c)}/${last}`, f.newcomer.token]]);
  });
});
