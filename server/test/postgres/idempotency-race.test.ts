import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRawClient, type RawClient } from '@tms/client';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signDevToken } from '../../src/auth/sign-token.js';
import { unique } from '../factories.js';
import { errorCodeOf, uniqueEmail } from '../membership-helpers.js';
import { type Spawned, spawnServer } from '../process/spawn-server.js';
import { type BareDatabase, createBareDatabase } from '../test-database.js';

// One Idempotency-Key sent twice at once, to two processes: the change happens once, and each
// answer is the first one (201, replayed) or says the first is still running (409).
const ROUNDS = 40;
const SECRET = 'idempotency-race-secret-of-at-least-32-bytes';
const ADMIN_SUBJECT = unique('idem-admin');

let database: BareDatabase;
let workdir: string;
let sql: postgres.Sql;
const servers: Spawned[] = [];
let apis: [RawClient, RawClient];

beforeAll(async () => {
  database = await createBareDatabase();
  workdir = mkdtempSync(join(tmpdir(), 'tms-idem-race-'));
  const env = {
    DATABASE_URL: database.url,
    AUTH_JWT_SECRET: SECRET,
    NODE_ENV: 'test',
    SUPER_ADMIN_SUBJECTS: ADMIN_SUBJECT,
    RATE_LIMIT_MAX: '0',
  };
  servers.push(...(await Promise.all([spawnServer(env, workdir), spawnServer(env, workdir)])));
  const token = await signDevToken(SECRET, { sub: ADMIN_SUBJECT });
  const [first, second] = servers.map((s) => createRawClient({ baseUrl: s.baseUrl, token }));
  if (!first || !second) throw new Error('two servers were expected');
  apis = [first, second];
  sql = postgres(database.url, { max: 2, onnotice: () => {} });
}, 60_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  for (const server of servers) server.child.kill('SIGTERM');
  const exits = await Promise.all(servers.map((s) => s.exit));
  await database?.drop();
  if (workdir) rmSync(workdir, { recursive: true, force: true });
  expect(exits).toEqual(servers.map(() => ({ code: 0, signal: null })));
}, 30_000);

it(`a key sent to two processes at once acts once (${ROUNDS} rounds)`, async () => {
  const slug = unique('idem-race');
  const created = await apis[0].tenants.create({
    body: { name: slug, slug, owner: { email: uniqueEmail('owner') } },
  });
  if (created.status !== 201) throw new Error(`seeding answered ${created.status}`);
  const tenantId = created.body.data.tenantId;
  const outcomes: Record<string, number> = {};
  for (let round = 0; round < ROUNDS; round++) {
    const key = randomUUID();
    const body = { role: 'STUDENT' as const, email: uniqueEmail('racer') };
    const answers = await Promise.all(
      apis.map((api) =>
        api.memberships.create({ params: { tenantId }, headers: { 'idempotency-key': key }, body }),
      ),
    );
    for (const res of answers) {
      const label = `${res.status} ${errorCodeOf(res) ?? (res.headers.get('idempotent-replayed') ? 'replayed' : 'first')}`;
      outcomes[label] = (outcomes[label] ?? 0) + 1;
      expect(['201 first', '201 replayed', '409 IDEMPOTENCY_KEY_IN_FLIGHT']).toContain(label);
    }
    const successes = answers.filter((res) => res.status === 201);
    expect(successes.length).toBeGreaterThanOrEqual(1);
    if (successes.length === 2) expect(successes[0]?.body).toEqual(successes[1]?.body);
    const [{ n } = { n: -1 }] = await sql<{ n: number }[]>`
      select count(*)::int as n from tenant_memberships m join users u on u.id = m.user_id
      where m.tenant_id = ${tenantId} and u.email = ${body.email}`;
    expect(n).toBe(1);
  }
  console.warn(`idempotency race: ${JSON.stringify(outcomes)}`);
}, 120_000);
