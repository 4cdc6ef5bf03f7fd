import { type Client, createClient } from '@tms/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from '../support/factories.js';
import { type AnyResponse, errorCodeOf, uniqueEmail } from '../support/memberships.js';
import { startTwoServers, type TwoServers } from './two-servers.js';

// An invitation's answers must agree across processes, which share no memory: only the tenant row
// lock (taken first by every writer of the tenant's invitations and memberships) and the partial
// unique index `invitations_pending_key` can keep them. Each pair of requests goes one to each
// process, alternating which gets which.
const ROUNDS = 100;
let servers: TwoServers;
let sql: TwoServers['sql'];
let admins: TwoServers['apis'];

beforeAll(async () => {
  servers = await startTwoServers({ RATE_LIMIT_MAX: '0' });
  ({ apis: admins, sql } = servers);
}, 60_000);

afterAll(() => servers?.stop(), 30_000);

/** The typed SDK against one process; `[first, second]` by process. */
const sdksOf = async (input: Parameters<TwoServers['token']>[0]): Promise<[Client, Client]> => {
  const token = await servers.token(input);
  const [a, b] = servers.baseUrls.map((baseUrl) => createClient({ baseUrl, token, retries: false }));
  return [a as Client, b as Client];
};

let superAdmins: [Client, Client];
beforeAll(async () => {
  // The super administrator the servers were started with: the first request through apis made it.
  const me = await admins[0].me.get();
  if (me.status !== 200) throw new Error(`/me answered ${me.status}`);
  const [row] = await sql<
    { subject: string }[]
  >`select subject from users where id = ${me.body.data.user.userId}`;
  superAdmins = await sdksOf({ sub: row?.subject as string });
});

/** A tenant (its OWNER invited by email) and an invitee who has signed in with a verified email. */
async function tenantAndInvitee() {
  const slug = unique('race');
  const tenant = await superAdmins[0].tenants.create({
    name: slug,
    slug,
    owner: { email: uniqueEmail('owner') },
  });
  const email = uniqueEmail('invitee');
  const invitee = await sdksOf({ sub: unique('invitee'), email, emailVerified: true });
  const { user } = await invitee[0].me();
  return { tenantId: tenant.tenantId, email, invitee, inviteeId: user.userId };
}

type Settled = { status: number; code?: string };
/** An SDK call's outcome as status and code, whichever it was. */
const settle = (call: Promise<unknown>, success: number): Promise<Settled> =>
  call.then(
    () => ({ status: success }),
    (error: { status?: number; code?: string }) => {
      if (error.status === undefined) throw error;
      return { status: error.status, code: error.code };
    },
  );

const describeAll = (answers: Settled[]) =>
  answers.map((a) => `${a.status} ${a.code ?? ''}`.trim()).join(', ');

describe('two server processes on one PostgreSQL', () => {
  it(`accept vs revoke: exactly one wins, and the invitation and memberships agree with it (${ROUNDS} rounds)`, async () => {
    const wins = { accept: 0, revoke: 0 };
    for (let i = 0; i < ROUNDS; i++) {
      const round = await tenantAndInvitee();
      const invitation = await superAdmins[0].invitations.create(round.tenantId, {
        email: round.email,
        role: 'TEACHER',
      });
      const [p, q] = (i % 2 === 0 ? [0, 1] : [1, 0]) as [0 | 1, 0 | 1];
      const answers = await Promise.all([
        settle(round.invitee[p].invitations.accept(invitation.invitationId), 201),
        settle(superAdmins[q].invitations.revoke(round.tenantId, invitation.invitationId), 200),
      ]);
      const [accept, revoke] = answers as [Settled, Settled];
      const context = `round ${i}: ${describeAll(answers)}`;
      const [row] = await sql<{ status: string; accepted_user_id: string | null }[]>`
        select status::text, accepted_user_id from invitations where id = ${invitation.invitationId}`;
      const [members] = await sql<{ n: number }[]>`
        select count(*)::int as n from tenant_memberships
        where tenant_id = ${round.tenantId} and user_id = ${round.inviteeId}`;
      if (accept.status === 201) {
        wins.accept++;
        expect(revoke, context).toEqual({ status: 409, code: 'INVITATION_NOT_PENDING' });
        expect(row, context).toEqual({ status: 'ACCEPTED', accepted_user_id: round.inviteeId });
        expect(members?.n, context).toBe(1);
      } else {
        wins.revoke++;
        expect(revoke, context).toEqual({ status: 200 });
        expect(accept, context).toEqual({ status: 409, code: 'INVITATION_NOT_PENDING' });
        expect(row, context).toEqual({ status: 'REVOKED', accepted_user_id: null });
        expect(members?.n, context).toBe(0);
      }
    }
    expect(wins.accept + wins.revoke).toBe(ROUNDS);
  });

  it(`accept vs adding the same person by userId: one membership, and the invitation says who won (${ROUNDS / 2} rounds)`, async () => {
    for (let i = 0; i < ROUNDS / 2; i++) {
      const round = await tenantAndInvitee();
      const invitation = await superAdmins[0].invitations.create(round.tenantId, {
        email: round.email,
        role: 'TEACHER',
      });
      const [p, q] = (i % 2 === 0 ? [0, 1] : [1, 0]) as [0 | 1, 0 | 1];
      const answers = await Promise.all([
        settle(round.invitee[p].invitations.accept(invitation.invitationId), 201),
        settle(
          superAdmins[q].memberships.create(round.tenantId, { role: 'STUDENT', userId: round.inviteeId }),
          201,
        ),
      ]);
      const context = `round ${i}: ${describeAll(answers)}`;
      expect(answers.map((a) => a.status).sort(), context).toEqual([201, 409]);
      expect(answers.find((a) => a.status === 409)?.code, context).toBe('MEMBERSHIP_ALREADY_EXISTS');
      const [row] = await sql<{ status: string }[]>`
        select status::text from invitations where id = ${invitation.invitationId}`;
      const members = await sql<{ role: string }[]>`
        select role::text from tenant_memberships where tenant_id = ${round.tenantId} and user_id = ${round.inviteeId}`;
      const accepted = answers[0]?.status === 201;
      expect(members, context).toEqual([{ role: accepted ? 'TEACHER' : 'STUDENT' }]);
      expect(row?.status, context).toBe(accepted ? 'ACCEPTED' : 'PENDING');
    }
  });

  it(`two creates for one address at once: one 201, one 409, one pending row (${ROUNDS} rounds)`, async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const slug = unique('race');
      const tenant = await superAdmins[0].tenants.create({
        name: slug,
        slug,
        owner: { email: uniqueEmail('o') },
      });
      const email = uniqueEmail('twice');
      if (i % 2 === 1) {
        // An expired invitation still PENDING in its row: both creates must first mark it EXPIRED.
        const old = await superAdmins[0].invitations.create(tenant.tenantId, { email, role: 'STUDENT' });
        await sql`update invitations set expires_at = now() - interval '1 minute' where id = ${old.invitationId}`;
      }
      const [p, q] = (i % 2 === 0 ? [0, 1] : [1, 0]) as [0 | 1, 0 | 1];
      const answers: AnyResponse[] = await Promise.all([
        admins[p].invitations.create({
          params: { tenantId: tenant.tenantId },
          body: { email, role: 'STUDENT' },
        }),
        admins[q].invitations.create({
          params: { tenantId: tenant.tenantId },
          body: { email: email.toUpperCase(), role: 'TEACHER' },
        }),
      ]);
      const context = `round ${i}: ${answers.map((a) => `${a.status} ${errorCodeOf(a) ?? ''}`).join(', ')}`;
      expect(answers.map((a) => a.status).sort(), context).toEqual([201, 409]);
      expect(answers.map(errorCodeOf), context).toContain('INVITATION_ALREADY_PENDING');
      const rows = await sql<{ status: string }[]>`
        select status::text from invitations where tenant_id = ${tenant.tenantId} order by id`;
      expect(
        rows.map((r) => r.status),
        context,
      ).toEqual(i % 2 === 1 ? ['EXPIRED', 'PENDING'] : ['PENDING']);
    }
  });
});
