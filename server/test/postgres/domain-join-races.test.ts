import { createClient } from '@tms/client';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantMemberships, users } from '../../src/db/schema.js';
import { freshDomain } from '../domains/helpers.js';
import { schoolOf } from '../joining/helpers.js';
import { createSuperAdmin, unique } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { decided, errorCodeOf } from '../support/memberships.js';

// PostgreSQL only (this folder runs when TEST_DATABASE_URL is set): PGlite runs one transaction at
// a time. A first sign-in by a verified domain takes the tenant's lock, as an admin's add does; the
// person's membership is unique per tenant and the domain applies once (domain_joins), so however
// the requests interleave the person ends up with one membership and nobody gets a 500.
const ROUNDS = 30;
const SAME_SUBJECT = 8;

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

/** A school with a verified domain of mode join (STUDENT). */
async function schoolWithDomain() {
  const school = await schoolOf(h);
  const superAdmin = await createSuperAdmin(h);
  const sdk = (token: string) => createClient({ baseUrl: h.baseUrl, token, retries: false });
  const domain = await sdk(school.owner.token).domains.create(school.tenantId, {
    domain: freshDomain(),
    mode: 'join',
  });
  await sdk(superAdmin.token).domains.verify(domain.domainId);
  return { school, domain: domain.domain };
}

async function membershipsOf(tenantId: string, email: string) {
  return h.db
    .select({ role: tenantMemberships.role, userId: tenantMemberships.userId, subject: users.subject })
    .from(tenantMemberships)
    .innerJoin(users, eq(users.id, tenantMemberships.userId))
    .where(and(eq(tenantMemberships.tenantId, tenantId), eq(users.email, email)));
}

describe('joining by a verified domain, concurrently', () => {
  it(`a first sign-in racing an admin's add of the same person: one membership (${ROUNDS} rounds)`, async () => {
    const { school, domain } = await schoolWithDomain();
    const outcomes = new Map<string, number>();
    for (let i = 0; i < ROUNDS; i++) {
      const email = `${unique('pupil')}@${domain}`;
      const person = h.client(await h.token(unique('sub'), { email, emailVerified: true }));
      // The sign-in's first sight does more before it locks the tenant than the add does: the
      // add is held back by 0 to 3 of the admin's own reads, so that rounds meet at each point.
      const adding = async () => {
        for (let lead = 0; lead < i % 4; lead++) await school.admin.api.me.get();
        return decided(() =>
          school.admin.api.memberships.create({
            params: { tenantId: school.tenantId },
            body: { email, role: 'TEACHER' },
          }),
        );
      };
      const [add, me] = await Promise.all([adding(), decided(() => person.me.get())]);
      const context = `round ${i}: add ${add.status} ${errorCodeOf(add) ?? ''}, me ${me.status}`;
      expect(me.status, context).toBe(200);
      expect([201, 409], context).toContain(add.status);
      if (add.status === 409) expect(errorCodeOf(add), context).toBe('MEMBERSHIP_ALREADY_EXISTS');
      const rows = await membershipsOf(school.tenantId, email);
      expect(rows, context).toHaveLength(1);
      // The admin's add made it (TEACHER), or found the domain's (STUDENT) and said so.
      expect(rows[0]?.role, context).toBe(add.status === 201 ? 'TEACHER' : 'STUDENT');
      expect(rows[0]?.subject, context).not.toBeNull();
      const key = add.status === 201 ? 'admin first' : 'domain first';
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    }
    console.warn(`domain sign-in vs admin add: ${JSON.stringify(Object.fromEntries(outcomes))}`);
  });

  it(`${SAME_SUBJECT} first requests of one new subject at once: one membership`, async () => {
    const { school, domain } = await schoolWithDomain();
    for (let i = 0; i < 5; i++) {
      const email = `${unique('twin')}@${domain}`;
      const person = h.client(await h.token(unique('sub'), { email, emailVerified: true }));
      const answers = await Promise.all(
        Array.from({ length: SAME_SUBJECT }, () => decided(() => person.me.get())),
      );
      expect(answers.map((res) => res.status)).toEqual(Array(SAME_SUBJECT).fill(200));
      const rows = await membershipsOf(school.tenantId, email);
      expect(rows).toHaveLength(1);
      expect(rows[0]?.role).toBe('STUDENT');
    }
  });
});
