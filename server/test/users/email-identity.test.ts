import { eq, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateData } from '../../src/db/data-migrations.js';
import { dataMigrations, users } from '../../src/db/schema.js';
import { findUserByEmail } from '../../src/identity/identity.repository.js';
import { type Actor, createSuperAdmin, createTenantFixture, unique } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { expectError } from '../support/memberships.js';

// Who is whom is decided by one canonical form of the address (docs/identity.md): the domain
// through IDNA to ASCII, lower-cased; the local part lower-cased in ASCII only. Unicode case
// mapping never makes two addresses one person.

let h: TestServer;
let admin: Actor;

beforeAll(async () => {
  h = await startTestServer();
  admin = await createSuperAdmin(h);
});
afterAll(() => h.close());

/** A verified sign-in: the caller's /me. */
async function signIn(sub: string, email: string, extra: { name?: string; emailVerified?: boolean } = {}) {
  const me = await h.client(await h.token(sub, { email, emailVerified: true, ...extra })).me.get();
  if (me.status !== 200) throw new Error(`/me answered ${me.status}`);
  return me.body.data;
}

async function inviteTo(tenantId: string, email: string, displayName?: string) {
  const res = await admin.api.memberships.create({
    params: { tenantId },
    body: { role: 'ADMIN', email, ...(displayName ? { displayName } : {}) },
  });
  if (res.status !== 201) throw new Error(`invite answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

const tag = () => unique('x').slice(2);

describe('look-alike addresses never claim an invitation', () => {
  it.each([
    ['KELVIN SIGN for K', (t: string) => `kim${t}@example.edu`, (t: string) => `\u212Aim${t}@example.edu`],
    [
      'dotted capital I for i',
      (t: string) => `ivan${t}@example.edu`,
      (t: string) => `\u0130van${t}@example.edu`,
    ],
    [
      'dotted capital I in the domain',
      (t: string) => `bob@institute${t}.edu`,
      (t: string) => `bob@\u0130nstitute${t}.edu`,
    ],
  ])('%s', async (_label, real, lookAlike) => {
    const t = tag();
    const tenant = await createTenantFixture(h);
    const invited = await inviteTo(tenant.tenantId, real(t));

    const attacker = await signIn(unique('attacker'), lookAlike(t));
    expect(attacker.memberships).toEqual([]);
    expect(attacker.user.userId).not.toBe(invited.userId);

    const rightful = await signIn(unique('rightful'), real(t));
    expect(rightful.user.userId).toBe(invited.userId);
    expect(rightful.memberships).toEqual([
      expect.objectContaining({ tenantId: tenant.tenantId, role: 'ADMIN' }),
    ]);
  });

  // IDNA's mapping removes default-ignorable characters and folds compatibility forms: a provider
  // that verified the look-alike has not shown that the caller controls the real address.
  it.each([
    ['a zero-width space in the domain', (t: string) => `zw${t}@example\u200b.edu`],
    ['a zero-width joiner in the domain', (t: string) => `zw${t}@exam\u200dple.edu`],
    ['a soft hyphen in the domain', (t: string) => `zw${t}@exam\u00adple.edu`],
    ['a full-width letter in the domain', (t: string) => `zw${t}@\uff45xample.edu`],
    ['an ideographic full stop for the dot', (t: string) => `zw${t}@example\u3002edu`],
  ])('%s: claims nothing, matches no one, and is refused as an address', async (_label, lookAlike) => {
    const t = tag();
    const tenant = await createTenantFixture(h);
    const invited = await inviteTo(tenant.tenantId, `zw${t}@example.edu`);

    const attacker = await signIn(unique('attacker'), lookAlike(t));
    expect(attacker.memberships).toEqual([]);
    expect(attacker.user.userId).not.toBe(invited.userId);
    expect(attacker.user.email).toBeNull();

    const refused = await admin.api.memberships.create({
      params: { tenantId: tenant.tenantId },
      body: { role: 'STUDENT', email: lookAlike(t) },
    });
    expectError(refused, 400, 'VALIDATION_FAILED');

    const rightful = await signIn(unique('rightful'), `zw${t}@example.edu`);
    expect(rightful.user.userId).toBe(invited.userId);
  });

  it('a tenant’s first OWNER invited through POST /admin/tenants', async () => {
    const t = tag();
    const slug = unique('kelvin');
    const created = await admin.api.tenants.create({
      body: { name: slug, slug, owner: { email: `kim${t}@example.edu` } },
    });
    expect(created.status).toBe(201);
    const attacker = await signIn(unique('attacker'), `\u212Aim${t}@example.edu`);
    expect(attacker.memberships).toEqual([]);
    const rightful = await signIn(unique('kim'), `KIM${t}@Example.EDU`);
    expect(rightful.memberships).toEqual([expect.objectContaining({ tenantSlug: slug, role: 'OWNER' })]);
  });

  it('an attacker who signed in first with bob@İnstitute.edu is not given bob@institute.edu', async () => {
    const t = tag();
    const attackerSub = unique('attacker');
    const attacker = await signIn(attackerSub, `bob@\u0130nstitute${t}.edu`);
    const tenant = await createTenantFixture(h);
    const invited = await inviteTo(tenant.tenantId, `bob@institute${t}.edu`);
    expect(invited.userId).not.toBe(attacker.user.userId);
    expect(invited.user.email).toBe(`bob@institute${t}.edu`);

    // The real Bob signs in later and gets the invitation, and the address, himself.
    const bob = await signIn(unique('bob'), `bob@institute${t}.edu`);
    expect(bob.user).toMatchObject({ userId: invited.userId, email: `bob@institute${t}.edu` });
    expect(bob.memberships).toEqual([expect.objectContaining({ tenantId: tenant.tenantId })]);
    const again = await signIn(attackerSub, `bob@\u0130nstitute${t}.edu`);
    expect(again).toMatchObject({ user: { userId: attacker.user.userId }, memberships: [] });
  });
});

describe('the canonical form', () => {
  it('makes one person of ASCII case and of an IDN domain in Unicode or in ASCII', async () => {
    const t = tag();
    const tenant = await createTenantFixture(h);
    const invited = await inviteTo(tenant.tenantId, `J\u00f6rg.Kim${t}@M\u00dcLLER.de`);
    // Shown as given; found by its canonical form.
    expect(invited.user.email).toBe(`J\u00f6rg.Kim${t}@M\u00dcLLER.de`);
    const found = await findUserByEmail(h.db, `j\u00f6rg.kim${t}@xn--mller-kva.de`);
    expect(found?.emailCanonical).toBe(`j\u00f6rg.kim${t}@xn--mller-kva.de`);

    const person = await signIn(unique('joerg'), `j\u00f6rg.KIM${t}@xn--MLLER-kva.DE`);
    expect(person.user.userId).toBe(invited.userId);
  });

  it('keeps non-ASCII letters of the local part as they are: Ö and ö are two people', async () => {
    const t = tag();
    const tenant = await createTenantFixture(h);
    const invited = await inviteTo(tenant.tenantId, `\u00f6${t}@example.edu`);
    const other = await signIn(unique('upper'), `\u00d6${t}@example.edu`);
    expect(other.user.userId).not.toBe(invited.userId);
    expect(other.memberships).toEqual([]);
  });

  it.each([
    ['no domain dot', 'someone@localhost'],
    ['an address literal', 'someone@[127.0.0.1]'],
    ['a domain starting with a dash', 'someone@-example.edu'],
    ['two dots in a row', 'some..one@example.edu'],
    ['a quoted local part', '"some one"@example.edu'],
  ])('refuses %s on input with 400 VALIDATION_FAILED naming the field', async (_label, email) => {
    const tenant = await createTenantFixture(h);
    const added = await admin.api.memberships.create({
      params: { tenantId: tenant.tenantId },
      body: { role: 'STUDENT', email },
    });
    expectError(added, 400, 'VALIDATION_FAILED');
    expect(added.body).toMatchObject({ error: { details: [{ path: 'body.email' }] } });
    const slug = unique('bad-owner');
    const created = await admin.api.tenants.create({ body: { name: slug, slug, owner: { email } } });
    expectError(created, 400, 'VALIDATION_FAILED');
    expect(created.body).toMatchObject({ error: { details: [{ path: 'body.owner.email' }] } });
    expect(await findUserByEmail(h.db, email)).toBeUndefined();
  });

  it('ignores an address that is not valid in a token’s claims', async () => {
    const me = await signIn(unique('odd'), 'someone@localhost');
    expect(me.user.email).toBeNull();
  });
});

describe('names and addresses come from the person once they sign in', () => {
  it('a name given by one tenant when inviting is never shown to another tenant', async () => {
    const email = `${unique('grace')}@example.edu`;
    const a = await createTenantFixture(h);
    const b = await createTenantFixture(h);
    const inA = await inviteTo(a.tenantId, email, 'Grace (from A)');
    const inB = await inviteTo(b.tenantId, email, 'Ms Hopper (from B)');
    expect(inB.userId).toBe(inA.userId);
    const read = async (tenantId: string, membershipId: string) => {
      const res = await admin.api.memberships.get({ params: { tenantId, tenantMembershipId: membershipId } });
      return res.status === 200 ? res.body.data.user.displayName : `status ${res.status}`;
    };
    expect(await read(a.tenantId, inA.tenantMembershipId)).toBe('Grace (from A)');
    expect(await read(b.tenantId, inB.tenantMembershipId)).toBe('Ms Hopper (from B)');

    // Signed in, the person's own name is what every tenant sees, refreshed from each new token.
    const sub = unique('grace');
    expect((await signIn(sub, email, { name: 'Grace Hopper' })).user.displayName).toBe('Grace Hopper');
    expect(await read(a.tenantId, inA.tenantMembershipId)).toBe('Grace Hopper');
    expect(await read(b.tenantId, inB.tenantMembershipId)).toBe('Grace Hopper');
    expect((await signIn(sub, email, { name: 'Rear Admiral Hopper' })).user.displayName).toBe(
      'Rear Admiral Hopper',
    );
    expect(await read(b.tenantId, inB.tenantMembershipId)).toBe('Rear Admiral Hopper');

    // A later invitation's name changes nothing any more.
    const c = await createTenantFixture(h);
    const inC = await inviteTo(c.tenantId, email, 'Someone else');
    expect(inC.user.displayName).toBe('Rear Admiral Hopper');
  });

  it('the address is refreshed from a newer token only when verified', async () => {
    const sub = unique('mover');
    const first = `${unique('old')}@example.edu`;
    const second = `${unique('new')}@example.edu`;
    expect((await signIn(sub, first)).user.email).toBe(first);
    expect((await signIn(sub, second, { emailVerified: false })).user.email).toBe(first);
    expect((await signIn(sub, second)).user.email).toBe(second);
    expect((await findUserByEmail(h.db, first))?.subject ?? null).toBeNull();
  });

  it('someone who signed in before, without the address, claims an invitation once a token verifies it', async () => {
    const sub = unique('late');
    const email = `${unique('late')}@example.edu`;
    const before = await signIn(sub, email, { emailVerified: false });
    expect(before.user.email).toBeNull();
    const tenant = await createTenantFixture(h);
    const invited = await inviteTo(tenant.tenantId, email, 'Late Comer');
    expect(invited.userId).not.toBe(before.user.userId);

    const after = await signIn(sub, email);
    expect(after.user).toMatchObject({ userId: before.user.userId, email });
    expect(after.memberships).toEqual([
      expect.objectContaining({
        tenantId: tenant.tenantId,
        tenantMembershipId: invited.tenantMembershipId,
        role: 'ADMIN',
      }),
    ]);
    // The invited record is gone: one person, one user.
    const [{ n } = { n: -1 }] = await h.db
      .select({ n: sql<number>`count(*)::int` })
      .from(users)
      .where(eq(users.id, invited.userId));
    expect(n).toBe(0);
  });

  it('keeps the higher role when both the invited record and the person belong to a tenant', async () => {
    const sub = unique('both');
    const email = `${unique('both')}@example.edu`;
    const tenant = await createTenantFixture(h);
    const person = await signIn(sub, email, { emailVerified: false });
    const joined = await admin.api.memberships.create({
      params: { tenantId: tenant.tenantId },
      body: { role: 'STUDENT', userId: person.user.userId },
    });
    expect(joined.status).toBe(201);
    await inviteTo(tenant.tenantId, email);
    const after = await signIn(sub, email);
    expect(after.memberships).toEqual([
      expect.objectContaining({ tenantId: tenant.tenantId, role: 'ADMIN' }),
    ]);
  });
});

describe('existing rows', () => {
  it('get their canonical form after the migration, and an address two rows share is left unclaimable', async () => {
    const t = tag();
    // Time-ordered ids: of two rows with one address, the older keeps it.
    const ids = [uuidv7(), uuidv7(), uuidv7()];
    await h.db.insert(users).values([
      { id: ids[0] as string, subject: null, email: `Old.One${t}@M\u00dcLLER.de` },
      { id: ids[1] as string, subject: null, email: `not-an-address-${t}` },
      { id: ids[2] as string, subject: null, email: `old.one${t}@xn--mller-kva.de` },
    ]);
    await migrateData(h.db);
    const rows = await h.db
      .select()
      .from(users)
      .where(sql`${users.id} in (${sql.join(ids, sql`, `)})`);
    const canonicalOf = (id: string | undefined) => rows.find((r) => r.id === id)?.emailCanonical ?? null;
    expect(canonicalOf(ids[0])).toBe(`old.one${t}@xn--mller-kva.de`);
    expect(canonicalOf(ids[1])).toBeNull();
    expect(canonicalOf(ids[2])).toBeNull();
  });

  it('an invited address whose domain IDNA changed in more than case loses the canonical form it was given', async () => {
    const t = tag();
    const [stale, kept] = [uuidv7(), uuidv7()];
    // As the rule before this one stored them: the zero-width space mapped away.
    await h.db.insert(users).values([
      { id: stale, subject: null, email: `zw${t}@example\u200b.edu`, emailCanonical: `zw${t}@example.edu` },
      {
        id: kept,
        subject: null,
        email: `J\u00f6rg${t}@M\u00dcLLER.de`,
        emailCanonical: `j\u00f6rg${t}@xn--mller-kva.de`,
      },
    ]);
    await h.db
      .delete(dataMigrations)
      .where(eq(dataMigrations.name, 'canonical-emails-idna-changes-only-case'));
    await migrateData(h.db);
    const rows = await h.db.select().from(users).where(sql`${users.id} in (${stale}, ${kept})`);
    expect(rows.find((r) => r.id === stale)?.emailCanonical).toBeNull();
    expect(rows.find((r) => r.id === kept)?.emailCanonical).toBe(`j\u00f6rg${t}@xn--mller-kva.de`);
    // Recorded: the next start does not read the users again.
    const [done] = await h.db
      .select()
      .from(dataMigrations)
      .where(eq(dataMigrations.name, 'canonical-emails-idna-changes-only-case'));
    expect(done).toBeDefined();
    // Nobody signing in with the real address is handed the look-alike's invitation.
    const person = await signIn(unique('zw'), `zw${t}@example.edu`);
    expect(person.user.userId).not.toBe(stale);
  });
});
