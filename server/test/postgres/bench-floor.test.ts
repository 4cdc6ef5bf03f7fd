import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDevToken } from '../../src/auth/sign-token.js';
import { createSuperAdmin, unique } from '../factories.js';
import { startTestServer, TEST_SECRET, type TestServer } from '../harness.js';
import type { Json } from '../json.js';

// The bench judges the service against a floor (bench/bare-server.ts) that answers its requests in
// fewer round trips. A floor that answered differently, or skipped a rule, would make that
// comparison a lie: here both run on one database and get the same requests, and must give the
// same answers, refusals included. The floor behind express or fastify (BARE_FRAMEWORK), which the
// bench uses to measure what a framework alone costs, must give the same successful answers too.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

type Answer = { status: number; etag: string | null; body: Json };
const FRAMEWORKS = ['express', 'fastify'] as const;
type Framework = (typeof FRAMEWORKS)[number];
type Side = 'service' | 'floor' | Framework;
const uniqueEmail = () => `${unique('invited')}@example.test`;
const members = (tenantId: string) => `/tenants/${tenantId}/memberships`;

let h: TestServer;
type Floor = { child: ChildProcess; baseUrl: string; exit: Promise<number | null> };
let floor: Floor;
const floorOn = {} as Record<Framework, Floor>;

/** The floor as the bench runs it: its own process, on the test's database and secret. */
async function startFloor(databaseUrl: string, framework = ''): Promise<Floor> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/bare-server.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      AUTH_JWT_SECRET: TEST_SECRET,
      BARE_DATABASE_URL: databaseUrl,
      BARE_FRAMEWORK: framework,
    },
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

async function call(side: Side, method: string, path: string, token?: string, body?: unknown) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const base = side === 'service' ? h.baseUrl : side === 'floor' ? floor.baseUrl : floorOn[side].baseUrl;
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
  for (const framework of FRAMEWORKS) {
    const answer = await call(framework, method, path, token);
    expect(answer, `${method} ${path} on ${framework}`).toEqual(answers.service);
  }
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
  };
const f = {} as Fixture;

beforeAll(async () => {
  h = await startTestServer();
  if (!h.database.url) throw new Error('this suite needs PostgreSQL (TEST_DATABASE_URL)');
  floor = await startFloor(h.database.url);
  for (const framework of FRAMEWORKS) floorOn[framework] = await startFloor(h.database.url, framework);
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
});

afterAll(async () => {
  for (const side of [floor, ...Object.values(floorOn)]) {
    side?.child.kill('SIGTERM');
    await side?.exit;
  }
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

  it('POST then DELETE a membership: the same membership but for its id and times', async () => {
    const body = { role: 'STUDENT', userId: f.newcomer.userId };
    const made: Partial<Record<Side, Answer>> = {};
    for (const side of ['service', 'floor', ...FRAMEWORKS] as const) {
      made[side] = await call(side, 'POST', members(f.a), f.owner.token, body);
      const id = made[side]?.body?.data?.tenantMembershipId;
      const removed = await call(side, 'DELETE', `${members(f.a)}/${id}`, f.owner.token);
      expect(removed).toEqual({ status: 204, etag: null, body: null });
    }
    const same = ({ body, ...rest }: Answer) => {
      const { tenantMembershipId, createdAt, updatedAt, ...data } = body.data;
      return { ...rest, data, kept: [tenantMembershipId, createdAt, updatedAt].map((v) => typeof v) };
    };
    expect(made.service?.status).toBe(201);
    expect(same(made.floor as Answer)).toEqual(same(made.service as Answer));
    for (const framework of FRAMEWORKS)
      expect(same(made[framework] as Answer), framework).toEqual(same(made.service as Answer));
  });
});

describe('the bench floor refuses as the service does', () => {
  it('a caller without rights: a stranger, a TEACHER, a STUDENT, no token or a bad one', async () => {
    const one = `${members(f.a)}/${f.ids.admin}`;
    const post = { role: 'STUDENT', userId: f.newcomer.userId };
    const requests = [
      ['GET', members(f.a)],
      ['GET', `${members(f.a)}?limit=0`],
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
      [400, 'VALIDATION_FAILED', 'GET', `${members(f.a)}?limit=0`, f.owner.token],
      [400, 'VALIDATION_FAILED', 'GET', `${members(f.a)}?q=a%0Ab`, f.owner.token],
    ]);
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
    expect((await call('floor', 'DELETE', `${members(c)}/${second}`, f.newcomer.token)).status).toBe(204);
    const last = await ownerOf(c, f.newcomer);
    await expectRefusals([[409, 'LAST_OWNER', 'DELETE', `${members(c)}/${last}`, f.newcomer.token]]);
  });
});
