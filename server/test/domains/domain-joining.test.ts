import type { Client } from '@tms/client';
import type { Domain, Me } from '@tms/contract';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domainJoins } from '../../src/db/schema.js';
import { type School, schoolOf } from '../joining/helpers.js';
import { type Actor, createActor, createSuperAdmin, unique } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { sdkOf } from '../support/sdk.js';
import { freshDomain } from './helpers.js';

/*
 * Joining by a verified domain (docs/joining.md, "Verified domains"): at first sight and when a
 * person's verified address changes, and for the people already known when a domain becomes
 * verified or changes mode. Once only per tenant and person.
 */

let h: TestServer;
let superAdmin: Actor;
beforeAll(async () => {
  h = await startTestServer();
  superAdmin = await createSuperAdmin(h);
});
afterAll(() => h?.close());

type Person = { userId: string; subject: string; sdk: Client };

/** Someone signing in for the first time, with an address their identity provider verified (or not). */
async function signIn(email: string, emailVerified = true): Promise<Person & { me: Me }> {
  const subject = unique('sub');
  const sdk = sdkOf(h, { token: await h.token(subject, { email, emailVerified }) });
  const me = await sdk.me();
  return { userId: me.user.userId, subject, sdk, me };
}

/** The same person, now with another verified address (a changed claim). */
async function signInAgain(person: { subject: string }, email: string): Promise<Client> {
  const sdk = sdkOf(h, { token: await h.token(person.subject, { email, emailVerified: true }) });
  const me = await sdk.me();
  if (me.user.email !== email) throw new Error(`${email} did not become ${person.subject}'s`);
  return sdk;
}

/** A domain of the school, verified by a super administrator (its OWNER's address is elsewhere). */
async function verifiedDomain(
  school: School,
  body: { mode: 'join' | 'request'; role?: 'STUDENT' | 'TEACHER'; includeSubdomains?: boolean },
): Promise<Domain> {
  const domain = await sdkOf(h, school.owner).domains.create(school.tenantId, {
    domain: freshDomain(),
    ...body,
  });
  return sdkOf(h, superAdmin).domains.verify(domain.domainId);
}

const membershipIn = (me: Me, tenantId: string) => me.memberships.find((m) => m.tenantId === tenantId);

const eventsOf = async (school: School) =>
  (await sdkOf(h, school.owner).auditEvents.listForTenant(school.tenantId, { limit: 50 })).items;

describe('mode join', () => {
  it('a first sign-in at the domain makes an ACTIVE membership with its role, shown by GET /me', async () => {
    const school = await schoolOf(h);
    const domain = await verifiedDomain(school, { mode: 'join', role: 'TEACHER' });
    const person = await signIn(`ada@${domain.domain}`);
    expect(membershipIn(person.me, school.tenantId)).toMatchObject({ role: 'TEACHER', status: 'ACTIVE' });
    const created = (await eventsOf(school)).find(
      (e) => e.action === 'membership.created' && e.actor.userId === person.userId,
    );
    expect(created?.after).toMatchObject({
      userId: person.userId,
      role: 'TEACHER',
      joinedVia: { method: 'domain', domainId: domain.domainId },
    });
  });

  it('queues the event for the tenant webhooks, in the same transaction', async () => {
    const school = await schoolOf(h);
    const hook = await sdkOf(h, school.owner).webhooks.create(school.tenantId, {
      url: 'https://93.184.215.14/domain-joins',
      events: ['membership.created'],
    });
    const domain = await verifiedDomain(school, { mode: 'join' });
    const person = await signIn(`grace@${domain.domain}`);
    const deliveries = (await sdkOf(h, school.owner).webhooks.listDeliveries(school.tenantId, hook.webhookId))
      .items;
    const events = await eventsOf(school);
    const created = events.find((e) => e.action === 'membership.created' && e.actor.userId === person.userId);
    expect(deliveries.map((d) => d.auditEventId)).toContain(created?.auditEventId);
  });

  it('a known person whose verified address changes to one at the domain joins then', async () => {
    const school = await schoolOf(h);
    const domain = await verifiedDomain(school, { mode: 'join' });
    const person = await signIn(`before-${unique('x')}@example.test`);
    expect(membershipIn(person.me, school.tenantId)).toBeUndefined();
    const sdk = await signInAgain(person, `after@${domain.domain}`);
    expect(membershipIn(await sdk.me(), school.tenantId)).toMatchObject({
      role: 'STUDENT',
      status: 'ACTIVE',
    });
  });

  it('a tenant write is the first request: the caller is a member when its access is decided', async () => {
    const school = await schoolOf(h);
    const domain = await verifiedDomain(school, { mode: 'join', role: 'TEACHER' });
    const token = await h.token(unique('sub'), { email: `writer@${domain.domain}`, emailVerified: true });
    // A TEACHER may make codes: refused before the domain's membership, allowed with it.
    const code = await sdkOf(h, { token }).joinCodes.create(school.tenantId, {});
    expect(code.role).toBe('STUDENT');
  });
});

describe('mode request', () => {
  it('a first sign-in opens a join request for the domain, seen by the person and by the tenant', async () => {
    const school = await schoolOf(h);
    const domain = await verifiedDomain(school, { mode: 'request', role: 'TEACHER' });
    const person = await signIn(`alan@${domain.domain}`);
    expect(membershipIn(person.me, school.tenantId)).toBeUndefined();
    const [mine] = await person.sdk.joinRequests.listMine();
    expect(mine).toMatchObject({
      tenantId: school.tenantId,
      domainId: domain.domainId,
      joinCodeId: null,
      role: 'TEACHER',
      status: 'PENDING',
    });
    const pending = (await sdkOf(h, school.owner).joinRequests.list(school.tenantId, { status: 'PENDING' }))
      .items;
    expect(pending.map((r) => r.userId)).toEqual([person.userId]);
    const asked = (await eventsOf(school)).find((e) => e.action === 'join_request.created');
    expect(asked?.actor.userId).toBe(person.userId);
    expect(asked?.after).toMatchObject({ domainId: domain.domainId, userId: person.userId });
  });

  it('an approval gives at most the domain role, and says the request came from the domain', async () => {
    const school = await schoolOf(h);
    const domain = await verifiedDomain(school, { mode: 'request' });
    const person = await signIn(`kurt@${domain.domain}`);
    const [mine] = await person.sdk.joinRequests.listMine();
    if (!mine) throw new Error('no request');
    const owner = sdkOf(h, school.owner);
    await expect(
      owner.joinRequests.approve(school.tenantId, mine.joinRequestId, { role: 'TEACHER' }),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    const membership = await owner.joinRequests.approve(school.tenantId, mine.joinRequestId);
    expect(membership).toMatchObject({ role: 'STUDENT', status: 'ACTIVE' });
    const created = (await eventsOf(school)).find((e) => e.action === 'membership.created');
    expect(created?.after).toMatchObject({
      joinedVia: { method: 'join_request', joinRequestId: mine.joinRequestId, domainId: domain.domainId },
    });
  });
  it("a domain's requests are the school's: an ADMIN decides them, a TEACHER neither sees nor decides them", async () => {
    const school = await schoolOf(h);
    const domain = await verifiedDomain(school, { mode: 'request' });
    const person = await signIn(`lotte@${domain.domain}`);
    const [mine] = await person.sdk.joinRequests.listMine();
    if (!mine) throw new Error('no request');
    const teacher = sdkOf(h, school.teacher);
    const seen = await teacher.joinRequests.list(school.tenantId, { status: 'PENDING' });
    expect(seen.items.map((r) => r.joinRequestId)).not.toContain(mine.joinRequestId);
    await expect(teacher.joinRequests.reject(school.tenantId, mine.joinRequestId)).rejects.toMatchObject({
      status: 403,
      code: 'INSUFFICIENT_ROLE',
    });
    const admin = sdkOf(h, school.admin);
    const listed = await admin.joinRequests.list(school.tenantId, { status: 'PENDING' });
    expect(listed.items.map((r) => r.joinRequestId)).toContain(mine.joinRequestId);
    await expect(admin.joinRequests.approve(school.tenantId, mine.joinRequestId)).resolves.toMatchObject({
      role: 'STUDENT',
      status: 'ACTIVE',
    });
  });
});

describe('who the domain reaches', () => {
  it('subdomains only when the domain includes them; never by a substring', async () => {
    const school = await schoolOf(h);
    const exact = await verifiedDomain(school, { mode: 'join' });
    const below = await signIn(`a@staff.${exact.domain}`);
    const lookalike = await signIn(`b@evil${exact.domain}`);
    expect(membershipIn(below.me, school.tenantId)).toBeUndefined();
    expect(membershipIn(lookalike.me, school.tenantId)).toBeUndefined();

    const other = await schoolOf(h);
    const withSubs = await verifiedDomain(other, { mode: 'join', includeSubdomains: true });
    const deep = await signIn(`c@pupils.year7.${withSubs.domain}`);
    const at = await signIn(`d@${withSubs.domain}`);
    const sideways = await signIn(`e@x${withSubs.domain}`);
    expect(membershipIn(deep.me, other.tenantId)).toMatchObject({ status: 'ACTIVE' });
    expect(membershipIn(at.me, other.tenantId)).toMatchObject({ status: 'ACTIVE' });
    expect(membershipIn(sideways.me, other.tenantId)).toBeUndefined();
  });

  it('an address the identity provider did not verify does nothing', async () => {
    const school = await schoolOf(h);
    const domain = await verifiedDomain(school, { mode: 'join' });
    const person = await signIn(`mallory@${domain.domain}`, false);
    expect(person.me.user.email).toBeNull();
    expect(membershipIn(person.me, school.tenantId)).toBeUndefined();
  });

  it('an unverified domain does nothing; its verification brings in the people already known at it', async () => {
    const school = await schoolOf(h);
    const domain = await sdkOf(h, school.owner).domains.create(school.tenantId, {
      domain: freshDomain(),
      mode: 'join',
    });
    expect(domain.verifiedAt).toBeNull();
    const early = await signIn(`early@${domain.domain}`);
    const asker = await signIn(`asker@${domain.domain}`, false);
    expect(membershipIn(early.me, school.tenantId)).toBeUndefined();

    await sdkOf(h, superAdmin).domains.verify(domain.domainId);
    expect(membershipIn(await early.sdk.me(), school.tenantId)).toMatchObject({ status: 'ACTIVE' });
    // No verified address, no membership: the backfill reads only addresses people verified.
    expect(membershipIn(await asker.sdk.me(), school.tenantId)).toBeUndefined();
    const created = (await eventsOf(school)).find(
      (e) => e.action === 'membership.created' && (e.after as { userId?: string }).userId === early.userId,
    );
    expect(created?.actor.userId).toBe(superAdmin.userId);
    expect(created?.after).toMatchObject({ joinedVia: { method: 'domain', domainId: domain.domainId } });
  });

  it('an invited address is not a verified one: the verification leaves the invitee be', async () => {
    const school = await schoolOf(h);
    const domain = await sdkOf(h, school.owner).domains.create(school.tenantId, {
      domain: freshDomain(),
      mode: 'join',
    });
    const other = await schoolOf(h);
    const invited = await sdkOf(h, other.owner).memberships.create(other.tenantId, {
      email: `invited@${domain.domain}`,
      role: 'STUDENT',
    });
    await sdkOf(h, superAdmin).domains.verify(domain.domainId);
    const members = await sdkOf(h, school.owner).memberships.list(school.tenantId, { limit: 100 });
    expect(members.items.map((m) => m.userId)).not.toContain(invited.userId);
  });

  it('a domain made verified at once, or switched to another mode, applies to the people already known', async () => {
    const school = await schoolOf(h);
    const name = freshDomain();
    const known = await signIn(`known@${name}`);
    const head = await signInAgain(school.owner, `head@${name}`);
    const domain = await head.domains.create(school.tenantId, { domain: name, mode: 'request' });
    expect(domain.verifiedAt).not.toBeNull();
    expect((await known.sdk.joinRequests.listMine()).map((r) => r.domainId)).toEqual([domain.domainId]);

    // The switch reaches only those the domain has not reached yet: the request stays a request.
    const later = await createActor(h);
    await head.domains.update(school.tenantId, domain.domainId, { mode: 'join' });
    expect(membershipIn(await known.sdk.me(), school.tenantId)).toBeUndefined();
    const laterSdk = await signInAgain(later, `later@${name}`);
    expect(membershipIn(await laterSdk.me(), school.tenantId)).toMatchObject({ status: 'ACTIVE' });
  });

  it('a deleted tenant is never joined', async () => {
    const school = await schoolOf(h);
    const domain = await verifiedDomain(school, { mode: 'join' });
    await sdkOf(h, superAdmin).tenants.remove(school.tenantId);
    const person = await signIn(`late@${domain.domain}`);
    expect(membershipIn(person.me, school.tenantId)).toBeUndefined();
    const applied = await h.db
      .select()
      .from(domainJoins)
      .where(and(eq(domainJoins.tenantId, school.tenantId), eq(domainJoins.userId, person.userId)));
    expect(applied).toEqual([]);
  });
});

describe('once only', () => {
  it('a member removed is not brought back by a new address at the domain, nor by a new mode', async () => {
    const school = await schoolOf(h);
    const domain = await verifiedDomain(school, { mode: 'join' });
    const person = await signIn(`once@${domain.domain}`);
    const membership = membershipIn(person.me, school.tenantId);
    if (!membership) throw new Error('the domain made no membership');
    const owner = sdkOf(h, school.owner);
    await owner.memberships.remove(school.tenantId, membership.tenantMembershipId);
    const again = await signInAgain(person, `once.more@${domain.domain}`);
    await owner.domains.update(school.tenantId, domain.domainId, { mode: 'request' });
    await owner.domains.update(school.tenantId, domain.domainId, { mode: 'join' });
    expect(membershipIn(await again.me(), school.tenantId)).toBeUndefined();
    expect(await again.joinRequests.listMine()).toEqual([]);
  });

  it('a refused request is not asked again, a blocked person not let in', async () => {
    const school = await schoolOf(h);
    const domain = await verifiedDomain(school, { mode: 'request' });
    const refused = await signIn(`refused@${domain.domain}`);
    const blocked = await signIn(`blocked@${domain.domain}`);
    const owner = sdkOf(h, school.owner);
    const requestOf = async (p: Person) => (await p.sdk.joinRequests.listMine())[0]?.joinRequestId ?? '';
    await owner.joinRequests.reject(school.tenantId, await requestOf(refused));
    await owner.joinRequests.block(school.tenantId, await requestOf(blocked));
    await owner.domains.update(school.tenantId, domain.domainId, { mode: 'join' });
    for (const person of [refused, blocked]) {
      const sdk = await signInAgain(person, `${unique('new')}@${domain.domain}`);
      expect(membershipIn(await sdk.me(), school.tenantId)).toBeUndefined();
      expect((await sdk.joinRequests.listMine()).map((r) => r.status)).toEqual([
        person === refused ? 'REJECTED' : 'BLOCKED',
      ]);
    }
  });

  it('a changed role is for those the domain reaches next: a member keeps the role it was given', async () => {
    const school = await schoolOf(h);
    const domain = await verifiedDomain(school, { mode: 'join' });
    const first = await signIn(`first@${domain.domain}`);
    await sdkOf(h, school.owner).domains.update(school.tenantId, domain.domainId, { role: 'TEACHER' });
    const next = await signIn(`next@${domain.domain}`);
    expect(membershipIn(await first.sdk.me(), school.tenantId)).toMatchObject({ role: 'STUDENT' });
    expect(membershipIn(next.me, school.tenantId)).toMatchObject({ role: 'TEACHER' });
  });

  it('a domain removed keeps the memberships it made', async () => {
    const school = await schoolOf(h);
    const domain = await verifiedDomain(school, { mode: 'join' });
    const person = await signIn(`stays@${domain.domain}`);
    await sdkOf(h, school.owner).domains.remove(school.tenantId, domain.domainId);
    expect(membershipIn(await person.sdk.me(), school.tenantId)).toMatchObject({ status: 'ACTIVE' });
  });
});

describe('erasure', () => {
  it("erasing a person forgets which tenants' domains reached them", async () => {
    const school = await schoolOf(h);
    const domain = await verifiedDomain(school, { mode: 'join' });
    const person = await signIn(`erased@${domain.domain}`);
    const where = and(eq(domainJoins.tenantId, school.tenantId), eq(domainJoins.userId, person.userId));
    expect(await h.db.select().from(domainJoins).where(where)).toHaveLength(1);
    await sdkOf(h, superAdmin).users.erase(person.userId);
    expect(await h.db.select().from(domainJoins).where(where)).toEqual([]);
  });
});
