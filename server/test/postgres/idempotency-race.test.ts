import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { unique } from '../support/factories.js';
import { errorCodeOf, uniqueEmail } from '../support/memberships.js';
import { startTwoServers, type TwoServers } from './two-servers.js';

// One Idempotency-Key sent twice at once, to two processes: the change happens once, and each
// answer is the first one (201, replayed) or says the first is still running (409).
const ROUNDS = 40;
let servers: TwoServers;
let sql: TwoServers['sql'];
let apis: TwoServers['apis'];

beforeAll(async () => {
  servers = await startTwoServers({ RATE_LIMIT_MAX: '0' });
  ({ apis, sql } = servers);
}, 60_000);

afterAll(() => servers?.stop(), 30_000);

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
