import { createRawClient, type RawClient } from '@tms/client';
import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from '../support/factories.js';
import { type AnyResponse, errorCodeOf, uniqueEmail } from '../support/memberships.js';
import { startTwoServers, type TwoServers } from './two-servers.js';

// One pending transfer per tenant, one answer per transfer, and an ACTIVE OWNER in every tenant:
// two processes share no memory, so only the tenant's row lock and the partial unique index
// `ownership_transfers_pending_key` can keep these. Each race sends its two requests to different
// processes, alternating which gets which.
const ROUNDS = 40;
let servers: TwoServers;
let sql: postgres.Sql;
let apis: TwoServers['apis'];

beforeAll(async () => {
  // The seeding alone is hundreds of requests a minute by one super administrator.
  servers = await startTwoServers({ RATE_LIMIT_MAX: '0' });
  ({ apis, sql } = servers);
}, 60_000);

afterAll(() => servers?.stop(), 30_000);

/** A person with a token, known to the servers (first sight), with a client per process. */
async function person() {
  const token = await servers.token({ sub: unique('nominee') });
  const clients = servers.baseUrls.map((baseUrl) => createRawClient({ baseUrl, token })) as [
    RawClient,
    RawClient,
  ];
  const me = await clients[0].me.get();
  if (me.status !== 200) throw new Error(`first sight answered ${me.status}`);
  return { userId: me.body.data.user.userId, clients };
}

/** A tenant whose first OWNER (A) is the oldest, `owners` OWNERs in all, and two TEACHERs. */
async function seed(owners: 1 | 2) {
  const [api] = apis;
  const slug = unique('transfer-race');
  const tenant = await api.tenants.create({ body: { name: slug, slug, owner: { email: uniqueEmail('a') } } });
  if (tenant.status !== 201) throw new Error(`seeding answered ${tenant.status}`);
  const tenantId = tenant.body.data.tenantId;
  const [a] = await sql<{ id: string }[]>`select id from tenant_memberships where tenant_id = ${tenantId}`;
  if (!a) throw new Error('the first OWNER is missing');
  if (owners === 2) await add(tenantId, 'OWNER', { email: uniqueEmail('b') });
  const nominees = [await person(), await person()] as const;
  const ids: string[] = [];
  for (const nominee of nominees) ids.push(await add(tenantId, 'TEACHER', { userId: nominee.userId }));
  return {
    tenantId,
    initiator: a.id,
    nominees: nominees.map((n, i) => ({ ...n, membershipId: ids[i] as string })),
  };
}

async function add(tenantId: string, role: 'OWNER' | 'TEACHER', who: { email: string } | { userId: string }) {
  const res = await apis[0].memberships.create({ params: { tenantId }, body: { role, ...who } });
  if (res.status !== 201) throw new Error(`seeding answered ${res.status}`);
  return res.body.data.tenantMembershipId;
}

type Seeded = Awaited<ReturnType<typeof seed>>;

/** The super administrator offers the tenant (on behalf of A, its oldest OWNER) to the first TEACHER. */
async function offered(round: Seeded) {
  const res = await apis[0].ownershipTransfers.create({
    params: { tenantId: round.tenantId },
    body: { toMembershipId: round.nominees[0]?.membershipId as string },
  });
  if (res.status !== 201) throw new Error(`offering answered ${res.status}`);
  return res.body.data.transferId;
}

const describeAnswers = (answers: AnyResponse[]) =>
  answers.map((r) => `${r.status} ${errorCodeOf(r) ?? ''}`.trim()).join(', ');

const processes = (i: number): [0 | 1, 0 | 1] => (i % 2 === 0 ? [0, 1] : [1, 0]);

async function stateOf(tenantId: string) {
  const memberships = await sql<{ id: string; role: string; active: boolean }[]>`
    select id, role::text, (suspended_at is null and (starts_at is null or starts_at <= now())
      and (ends_at is null or ends_at > now())) as active
    from tenant_memberships where tenant_id = ${tenantId}`;
  const transfers = await sql<{ id: string; status: string }[]>`
    select id, status::text from ownership_transfers where tenant_id = ${tenantId} order by id`;
  const roleOf = (id: string) => memberships.find((m) => m.id === id)?.role;
  const activeOwners = memberships.filter((m) => m.role === 'OWNER' && m.active).length;
  return { roleOf, activeOwners, transfers };
}

describe('ownership transfers across two server processes on one PostgreSQL', () => {
  it(`two transfers created at once in one tenant: exactly one 201 (${ROUNDS} rounds)`, async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const round = await seed(1);
      // Every other round starts with a pending transfer past its time, which both must expire first.
      if (i % 2 === 1) {
        await offered(round);
        await sql`update ownership_transfers set expires_at = now() - interval '1 minute' where tenant_id = ${round.tenantId}`;
      }
      const [p, q] = processes(i);
      const answers = await Promise.all(
        round.nominees.map((nominee, n) =>
          apis[n === 0 ? p : q].ownershipTransfers.create({
            params: { tenantId: round.tenantId },
            body: { toMembershipId: nominee.membershipId },
          }),
        ),
      );
      const context = `round ${i}: ${describeAnswers(answers)}`;
      expect(answers.map((r) => r.status).sort(), context).toEqual([201, 409]);
      expect(answers.map(errorCodeOf), context).toContain('TRANSFER_ALREADY_PENDING');
      const { transfers } = await stateOf(round.tenantId);
      expect(
        transfers.filter((t) => t.status === 'PENDING'),
        context,
      ).toHaveLength(1);
      expect(
        transfers.filter((t) => t.status === 'EXPIRED'),
        context,
      ).toHaveLength(i % 2);
    }
  });

  it(`accept against cancel: exactly one wins (${ROUNDS} rounds)`, async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const round = await seed(1);
      const transferId = await offered(round);
      const nominee = round.nominees[0];
      if (!nominee) throw new Error('no nominee');
      const [p, q] = processes(i);
      const [accept, cancel] = await Promise.all([
        nominee.clients[p].ownershipTransfers.accept({ params: { transferId }, body: undefined }),
        apis[q].ownershipTransfers.cancel({
          params: { tenantId: round.tenantId, transferId },
          body: undefined,
        }),
      ]);
      const context = `round ${i}: ${describeAnswers([accept, cancel])}`;
      expect([accept.status, cancel.status].sort(), context).toEqual([200, 409]);
      const loser = accept.status === 409 ? accept : cancel;
      expect(errorCodeOf(loser), context).toBe('TRANSFER_NOT_PENDING');
      const { roleOf, activeOwners, transfers } = await stateOf(round.tenantId);
      if (accept.status === 200) {
        expect(
          transfers.map((t) => t.status),
          context,
        ).toEqual(['ACCEPTED']);
        expect([roleOf(nominee.membershipId), roleOf(round.initiator)], context).toEqual(['OWNER', 'ADMIN']);
      } else {
        expect(
          transfers.map((t) => t.status),
          context,
        ).toEqual(['CANCELLED']);
        expect([roleOf(nominee.membershipId), roleOf(round.initiator)], context).toEqual([
          'TEACHER',
          'OWNER',
        ]);
      }
      expect(activeOwners, context).toBe(1);
    }
  });

  it(`accept against the initiator's demotion: an ACTIVE OWNER always remains (${ROUNDS} rounds)`, async () => {
    for (let i = 0; i < ROUNDS; i++) {
      // With a second OWNER the demotion may go first; alone, it is refused LAST_OWNER until the
      // nominee has taken over.
      const owners = i % 2 === 0 ? 2 : 1;
      const round = await seed(owners);
      const transferId = await offered(round);
      const nominee = round.nominees[0];
      if (!nominee) throw new Error('no nominee');
      const [p, q] = processes(Math.floor(i / 2));
      const [accept, demote] = await Promise.all([
        nominee.clients[p].ownershipTransfers.accept({ params: { transferId }, body: undefined }),
        apis[q].memberships.update({
          params: { tenantId: round.tenantId, tenantMembershipId: round.initiator },
          body: { role: 'TEACHER' },
        }),
      ]);
      const context = `round ${i} (${owners} owners): ${describeAnswers([accept, demote])}`;
      const { roleOf, activeOwners, transfers } = await stateOf(round.tenantId);
      expect(activeOwners, context).toBeGreaterThanOrEqual(1);
      if (accept.status === 200) {
        // The nominee took over; the demotion went after it (of an ADMIN by then) or was refused first.
        expect(
          transfers.map((t) => t.status),
          context,
        ).toEqual(['ACCEPTED']);
        expect(roleOf(nominee.membershipId), context).toBe('OWNER');
        expect(roleOf(round.initiator), context).toBe(demote.status === 200 ? 'TEACHER' : 'ADMIN');
        if (demote.status !== 200) expect(errorCodeOf(demote), context).toBe('LAST_OWNER');
      } else {
        // The demotion went first: the initiator no longer qualified, and the transfer is cancelled.
        expect([accept.status, errorCodeOf(accept), demote.status], context).toEqual([
          409,
          'TRANSFER_NOT_APPLICABLE',
          200,
        ]);
        expect(
          transfers.map((t) => t.status),
          context,
        ).toEqual(['CANCELLED']);
        expect([roleOf(nominee.membershipId), roleOf(round.initiator)], context).toEqual([
          'TEACHER',
          'TEACHER',
        ]);
      }
    }
  });
});
