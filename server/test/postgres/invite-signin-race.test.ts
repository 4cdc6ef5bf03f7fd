import { createRawClient, type RawClient } from '@tms/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { unique } from '../support/factories.js';
import { startTwoServers, type TwoServers } from './two-servers.js';

// An invitation by email racing the invitee's first sign-in, across two processes: whichever
// commits first, the person must end up as one user, holding the membership. (Before the fix, a
// sign-in that found no invitation, then found its address taken by one committed meanwhile,
// made itself a user without an address, and the membership was orphaned for good.)
const PAIRS = 240;
const IN_FLIGHT = 12;
let servers: TwoServers;
let sql: TwoServers['sql'];
let admins: TwoServers['apis'];
let baseUrls: TwoServers['baseUrls'];

beforeAll(async () => {
  servers = await startTwoServers({ RATE_LIMIT_MAX: '0' });
  ({ apis: admins, baseUrls, sql } = servers);
}, 60_000);

afterAll(() => servers?.stop(), 30_000);

type Pair = { i: number; email: string; subject: string; tenantId?: string; slug?: string };

/** Half the pairs invite into an existing tenant, the others name the person a new tenant's OWNER. */
async function race(pair: Pair, tenantIds: string[]): Promise<Pair> {
  const inviter = admins[pair.i % 2] as RawClient;
  const signer = createRawClient({
    baseUrl: baseUrls[(pair.i + 1) % 2] as string,
    token: await servers.token({ sub: pair.subject, email: pair.email, emailVerified: true }),
  });
  const invite = async () => {
    if (pair.i % 4 === 3) {
      const slug = unique('race');
      const res = await inviter.tenants.create({ body: { name: slug, slug, owner: { email: pair.email } } });
      if (res.status !== 201) throw new Error(`create tenant answered ${res.status}`);
      return { ...pair, tenantId: res.body.data.tenantId, slug };
    }
    const tenantId = tenantIds[pair.i % tenantIds.length] as string;
    const res = await inviter.memberships.create({
      params: { tenantId },
      body: { role: 'TEACHER', email: pair.email },
    });
    if (res.status !== 201) throw new Error(`invite answered ${res.status}: ${JSON.stringify(res.body)}`);
    return { ...pair, tenantId };
  };
  const signIn = async () => {
    const res = await signer.me.get();
    if (res.status !== 200) throw new Error(`/me answered ${res.status}`);
  };
  const [invited] = await Promise.all([invite(), signIn()]);
  return invited;
}

it(`${PAIRS} invitations racing the invitee's first sign-in leave one user holding the membership`, async () => {
  const tenantIds: string[] = [];
  for (let n = 0; n < 6; n++) {
    const slug = unique('host');
    const res = await admins[0].tenants.create({
      body: { name: slug, slug, owner: { email: `${unique('host-owner')}@example.edu` } },
    });
    if (res.status !== 201) throw new Error(`seeding answered ${res.status}`);
    tenantIds.push(res.body.data.tenantId);
  }
  const pairs: Pair[] = Array.from({ length: PAIRS }, (_, i) => ({
    i,
    // Mixed case: the invitation and the token spell the address differently.
    email: i % 2 ? `${unique('Racer')}@Example.EDU` : `${unique('racer')}@example.edu`,
    subject: unique('racer-sub'),
  }));
  const done: Pair[] = [];
  for (let start = 0; start < pairs.length; start += IN_FLIGHT) {
    done.push(...(await Promise.all(pairs.slice(start, start + IN_FLIGHT).map((p) => race(p, tenantIds)))));
  }

  // Read before anyone signs in again (a later sign-in would repair an orphan): the membership is
  // held by the person's own user. ASCII addresses, so lower() is their canonical form.
  const holders = await sql<{ subject: string; holder: string | null }[]>`
    select p.subject,
           (select u.subject from tenant_memberships m join users u on u.id = m.user_id
             where m.tenant_id = p.tenant_id and lower(u.email) = lower(p.email)) as holder
    from json_to_recordset(${sql.json(done.map(({ subject, email, tenantId }) => ({ subject, email, tenant_id: tenantId ?? null })))}::json)
      as p(subject text, email text, tenant_id uuid)`;
  const orphaned = holders.filter((row) => row.holder !== row.subject);
  expect(orphaned, `${orphaned.length} of ${PAIRS} memberships are not held by the person`).toEqual([]);

  // Each person, signing in again, sees the membership; and no invited user is left beside them.
  const missing: string[] = [];
  for (const pair of done) {
    const me = await createRawClient({
      baseUrl: baseUrls[pair.i % 2] as string,
      token: await servers.token({ sub: pair.subject, email: pair.email, emailVerified: true }),
    }).me.get();
    const holds = me.status === 200 && me.body.data.memberships.some((m) => m.tenantId === pair.tenantId);
    if (!holds) missing.push(pair.email);
  }
  const [{ extra } = { extra: -1 }] = await sql<{ extra: number }[]>`
    select count(*)::int as extra from users u
    where lower(u.email) in (select lower(e) from json_array_elements_text(${sql.json(done.map((p) => p.email))}::json) as e)
      and u.subject is null`;
  expect(missing, `${missing.length} of ${PAIRS} people never got their membership`).toEqual([]);
  expect(extra, 'invited users left unclaimed beside the person').toBe(0);
}, 240_000);
