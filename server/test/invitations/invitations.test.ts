import { createClient } from '@tms/client';
import {
  type Invitation,
  InvitationSchema,
  MembershipSchema,
  MyInvitationSchema,
  type Role,
} from '@tms/contract';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invitations, tenantMemberships, tenants } from '../../src/db/schema.js';
import {
  type Actor,
  addMember,
  createActor,
  createSuperAdmin,
  createTenantFixture,
  unique,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { type Json, jsonOf } from '../support/json.js';
import { missingId, uniqueEmail } from '../support/memberships.js';
import { refusal, refused, sdkOf } from '../support/sdk.js';

let h: TestServer;
let superAdmin: Actor;
beforeAll(async () => {
  h = await startTestServer();
  superAdmin = await createSuperAdmin(h);
});
afterAll(() => h?.close());

const DAY = 24 * 60 * 60 * 1000;

/** A request as a hostile or careless client sends it, body and all. */
async function raw(path: string, options: { token?: string; method?: string; body?: string } = {}) {
  const res = await fetch(`${h.baseUrl}${path}`, {
    method: options.method ?? 'GET',
    body: options.body,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
  });
  return { status: res.status, body: (await jsonOf(res)) as Json };
}

/** A tenant with its OWNER, and an invitation to a new address (the invitee has not signed in). */
async function invited(role: Role = 'TEACHER', extra: { displayName?: string; expiresInDays?: number } = {}) {
  const t = await createTenantFixture(h);
  const email = uniqueEmail('invitee');
  const invitation = await sdkOf(h, t.owner).invitations.create(t.tenantId, { email, role, ...extra });
  return { t, email, invitation };
}

/** Drives time: the invitation's `expires_at` a minute in the past, as if its days had passed. */
async function lapse(invitationId: string): Promise<void> {
  await h.db
    .update(invitations)
    .set({ expiresAt: sql`now() - interval '1 minute'` })
    .where(eq(invitations.id, invitationId));
}

async function storedStatus(invitationId: string): Promise<string | undefined> {
  const [row] = await h.db
    .select({ status: invitations.status })
    .from(invitations)
    .where(eq(invitations.id, invitationId));
  return row?.status;
}

/** Someone signing in for the first time with a token whose email the identity provider verified. */
async function signIn(email: string, name?: string) {
  const token = await h.token(unique('sub'), { email, emailVerified: true, ...(name ? { name } : {}) });
  const sdk = createClient({ baseUrl: h.baseUrl, token, retries: false });
  const me = await sdk.me();
  return { token, sdk, userId: me.user.userId };
}

const validity = (i: Invitation) => Date.parse(i.expiresAt) - Date.parse(i.updatedAt);

describe('create', () => {
  it('201: the invitation as the contract says, PENDING for 7 days, by the caller', async () => {
    const { t, email, invitation } = await invited('TEACHER', { displayName: 'Grace Hopper' });
    expect(InvitationSchema.strict().parse(invitation)).toEqual({
      invitationId: expect.any(String),
      tenantId: t.tenantId,
      email,
      displayName: 'Grace Hopper',
      role: 'TEACHER',
      roleLevel: 20,
      status: 'PENDING',
      expiresAt: expect.stringMatching(/Z$/),
      invitedByUserId: t.owner.userId,
      acceptedAt: null,
      acceptedUserId: null,
      createdAt: invitation.createdAt,
      updatedAt: invitation.createdAt,
    });
    expect(Date.parse(invitation.expiresAt) - Date.parse(invitation.createdAt)).toBe(7 * DAY);
    // Nothing is made for the person until they accept: no user, no membership.
    const members = await h.db
      .select()
      .from(tenantMemberships)
      .where(eq(tenantMemberships.tenantId, t.tenantId));
    expect(members).toHaveLength(1);
  });

  it.each([1, 30])('expiresInDays %i: valid that many days', async (days) => {
    const { invitation } = await invited('STUDENT', { expiresInDays: days });
    expect(validity(invitation)).toBe(days * DAY);
  });

  it('roles: an ADMIN invites up to ADMIN, not an OWNER (403); an OWNER and a super administrator may', async () => {
    const t = await createTenantFixture(h);
    const admin = (await addMember(h, t.tenantId, 'ADMIN')).actor;
    const create = (actor: Actor, role: Role) =>
      sdkOf(h, actor).invitations.create(t.tenantId, { email: uniqueEmail(), role });
    expect((await create(admin, 'ADMIN')).role).toBe('ADMIN');
    expect(await refusal(create(admin, 'OWNER'))).toEqual(refused(403, 'ROLE_HIERARCHY_VIOLATION'));
    expect((await create(t.owner, 'OWNER')).roleLevel).toBe(40);
    expect((await create(superAdmin, 'OWNER')).invitedByUserId).toBe(superAdmin.userId);
    const teacher = (await addMember(h, t.tenantId, 'TEACHER')).actor;
    expect(await refusal(create(teacher, 'STUDENT'))).toEqual(refused(403, 'INSUFFICIENT_ROLE'));
    const stranger = await createActor(h);
    expect(await refusal(create(stranger, 'STUDENT'))).toEqual(refused(403, 'TENANT_ACCESS_DENIED'));
  });

  it('one pending invitation per address (its canonical form) and tenant: 409 INVITATION_ALREADY_PENDING', async () => {
    const { t, invitation } = await invited();
    const [local, domain] = invitation.email.split('@') as [string, string];
    const again = sdkOf(h, t.owner).invitations.create(t.tenantId, {
      email: `${local.toUpperCase()}@${domain.toUpperCase()}`,
      role: 'STUDENT',
    });
    expect(await refusal(again)).toEqual(refused(409, 'INVITATION_ALREADY_PENDING'));
    // Another tenant may invite the same address.
    const other = await createTenantFixture(h);
    const there = await sdkOf(h, other.owner).invitations.create(other.tenantId, {
      email: invitation.email,
      role: 'STUDENT',
    });
    expect(there.status).toBe('PENDING');
  });

  it('IDNA forms of one domain are one address; a look-alike local part (KELVIN SIGN) is another', async () => {
    const t = await createTenantFixture(h);
    const sdk = sdkOf(h, t.owner).invitations;
    const local = unique('jörg');
    await sdk.create(t.tenantId, { email: `${local}@MÜLLER.example`, role: 'STUDENT' });
    const punycode = sdk.create(t.tenantId, { email: `${local}@xn--mller-kva.example`, role: 'STUDENT' });
    expect(await refusal(punycode)).toEqual(refused(409, 'INVITATION_ALREADY_PENDING'));
    const kim = unique('kim');
    await sdk.create(t.tenantId, { email: `${kim}@example.test`, role: 'STUDENT' });
    const kelvin = await sdk.create(t.tenantId, {
      email: `\u212A${kim.slice(1)}@example.test`,
      role: 'STUDENT',
    });
    expect(kelvin.status).toBe('PENDING');
  });

  it('an expired invitation does not hold the address: a new one is made, the old one is stored EXPIRED', async () => {
    const { t, email, invitation } = await invited();
    await lapse(invitation.invitationId);
    const fresh = await sdkOf(h, t.owner).invitations.create(t.tenantId, { email, role: 'ADMIN' });
    expect(fresh).toMatchObject({ status: 'PENDING', role: 'ADMIN' });
    expect(await storedStatus(invitation.invitationId)).toBe('EXPIRED');
    expect((await sdkOf(h, t.owner).invitations.get(t.tenantId, invitation.invitationId)).status).toBe(
      'EXPIRED',
    );
  });

  it('an address that already has a membership here, in any status: 409 MEMBERSHIP_ALREADY_EXISTS', async () => {
    const t = await createTenantFixture(h);
    const sdk = sdkOf(h, t.owner);
    const member = await addMember(h, t.tenantId, 'STUDENT');
    await h.db
      .update(tenantMemberships)
      .set({ suspendedAt: sql`now()` })
      .where(eq(tenantMemberships.id, member.membershipId));
    const byEmail = await sdk.memberships.create(t.tenantId, {
      role: 'STUDENT',
      email: uniqueEmail('added'),
    });
    for (const email of [member.actor.email.toUpperCase(), byEmail.user.email as string]) {
      const res = sdk.invitations.create(t.tenantId, { email, role: 'TEACHER' });
      expect(await refusal(res)).toEqual(refused(409, 'MEMBERSHIP_ALREADY_EXISTS'));
    }
    expect((await sdk.invitations.list(t.tenantId)).items).toEqual([]);
  });

  it('10 creates for one address at once: one 201, nine 409 INVITATION_ALREADY_PENDING', async () => {
    const t = await createTenantFixture(h);
    const email = uniqueEmail('burst');
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        t.owner.api.invitations.create({
          params: { tenantId: t.tenantId },
          body: { email, role: 'STUDENT' },
        }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, ...Array<number>(9).fill(409)]);
    for (const a of answers.filter((r) => r.status === 409))
      expect((a.body as Json).error.code).toBe('INVITATION_ALREADY_PENDING');
  });

  it('hostile bodies: 400 VALIDATION_FAILED naming the field, INVALID_JSON, nothing stored', async () => {
    const t = await createTenantFixture(h);
    const path = `/tenants/${t.tenantId}/invitations`;
    const cases: [unknown, string][] = [
      [{ email: 'not an address', role: 'STUDENT' }, 'body.email'],
      [{ email: 'kim@[127.0.0.1]', role: 'STUDENT' }, 'body.email'],
      [{ email: 'kim@localhost', role: 'STUDENT' }, 'body.email'],
      [{ email: `${'a'.repeat(250)}@example.test`, role: 'STUDENT' }, 'body.email'],
      [{ email: uniqueEmail(), role: 'GOD' }, 'body.role'],
      [{ email: uniqueEmail() }, 'body.role'],
      [{ email: uniqueEmail(), role: 'STUDENT', expiresInDays: 0 }, 'body.expiresInDays'],
      [{ email: uniqueEmail(), role: 'STUDENT', expiresInDays: 31 }, 'body.expiresInDays'],
      [{ email: uniqueEmail(), role: 'STUDENT', expiresInDays: 1.5 }, 'body.expiresInDays'],
      [{ email: uniqueEmail(), role: 'STUDENT', expiresInDays: '7' }, 'body.expiresInDays'],
      [{ email: uniqueEmail(), role: 'STUDENT', displayName: 'Nul\u0000' }, 'body.displayName'],
      [{ email: uniqueEmail(), role: 'STUDENT', displayName: '   ' }, 'body.displayName'],
      [{ email: uniqueEmail(), role: 'STUDENT', status: 'ACCEPTED' }, 'body'],
      [{ email: uniqueEmail(), role: 'STUDENT', tenantId: missingId() }, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await raw(path, { token: t.owner.token, method: 'POST', body: JSON.stringify(body) });
      expect(res.body.error?.code, JSON.stringify(body)).toBe('VALIDATION_FAILED');
      expect(
        res.body.error.details.map((d: { path: string }) => d.path).join(),
        JSON.stringify(body),
      ).toContain(field);
    }
    const broken = await raw(path, { token: t.owner.token, method: 'POST', body: '{"email":' });
    expect([broken.status, broken.body.error.code]).toEqual([400, 'INVALID_JSON']);
    const notUuid = await raw('/tenants/not-a-uuid/invitations', {
      token: t.owner.token,
      method: 'POST',
      body: '{}',
    });
    expect(notUuid.status).toBe(400);
    expect((await sdkOf(h, t.owner).invitations.list(t.tenantId)).items).toEqual([]);
  });
});

describe('list and get', () => {
  it('lists in creation order, page by page (listAll), and filters by status as shown', async () => {
    const t = await createTenantFixture(h);
    const sdk = sdkOf(h, t.owner).invitations;
    const made: Invitation[] = [];
    for (let i = 0; i < 5; i++)
      made.push(await sdk.create(t.tenantId, { email: uniqueEmail(), role: 'STUDENT' }));
    const [a, b, c, d] = made as [Invitation, Invitation, Invitation, Invitation, Invitation];
    await sdk.revoke(t.tenantId, b.invitationId);
    await lapse(c.invitationId);
    await lapse(d.invitationId);
    await sdk.resend(t.tenantId, d.invitationId);

    const all: string[] = [];
    for await (const invitation of sdk.listAll(t.tenantId, { limit: 2 })) all.push(invitation.invitationId);
    expect(all).toEqual(made.map((m) => m.invitationId));
    const page = await sdk.list(t.tenantId, { limit: 2 });
    expect(page.items).toHaveLength(2);
    expect(page.nextCursor).toEqual(expect.any(String));

    const ids = async (status: Invitation['status'] | Invitation['status'][]) =>
      (await sdk.list(t.tenantId, { status })).items.map((i) => i.invitationId);
    expect(await ids('PENDING')).toEqual([a.invitationId, d.invitationId, made[4]?.invitationId]);
    expect(await ids('EXPIRED')).toEqual([c.invitationId]);
    expect(await ids('REVOKED')).toEqual([b.invitationId]);
    expect(await ids(['REVOKED', 'EXPIRED'])).toEqual([b.invitationId, c.invitationId]);
    expect(await ids('ACCEPTED')).toEqual([]);
    for (const item of (await sdk.list(t.tenantId)).items) InvitationSchema.strict().parse(item);
  });

  it('a bad status, limit or cursor: 400 VALIDATION_FAILED', async () => {
    const t = await createTenantFixture(h);
    const base = `/tenants/${t.tenantId}/invitations`;
    for (const query of [
      'status=LOST',
      'limit=0',
      'limit=101',
      'cursor=bm90LW91cnM',
      'status=PENDING&status=NOPE',
    ]) {
      const res = await raw(`${base}?${query}`, { token: t.owner.token });
      expect([res.status, res.body.error.code], query).toEqual([400, 'VALIDATION_FAILED']);
    }
  });

  it("get: the invitation; another tenant's, or none, is 404 INVITATION_NOT_FOUND (even to a super administrator)", async () => {
    const { t, invitation } = await invited();
    expect(await sdkOf(h, t.owner).invitations.get(t.tenantId, invitation.invitationId)).toEqual(invitation);
    const other = await createTenantFixture(h);
    for (const actor of [other.owner, superAdmin]) {
      const res = sdkOf(h, actor).invitations.get(other.tenantId, invitation.invitationId);
      expect(await refusal(res)).toEqual(refused(404, 'INVITATION_NOT_FOUND'));
    }
    const missing = sdkOf(h, t.owner).invitations.get(t.tenantId, missingId());
    expect(await refusal(missing)).toEqual(refused(404, 'INVITATION_NOT_FOUND'));
    const notUuid = await raw(`/tenants/${t.tenantId}/invitations/1%20or%201=1`, { token: t.owner.token });
    expect([notUuid.status, notUuid.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
  });
});

describe('resend and revoke', () => {
  it('resend: 200, PENDING for 7 days from now, for a PENDING or an EXPIRED invitation', async () => {
    const { t, invitation } = await invited('STUDENT', { expiresInDays: 30 });
    const sdk = sdkOf(h, t.owner).invitations;
    const resent = await sdk.resend(t.tenantId, invitation.invitationId);
    expect(resent).toMatchObject({ status: 'PENDING', createdAt: invitation.createdAt });
    expect(validity(resent)).toBe(7 * DAY);
    await lapse(invitation.invitationId);
    const revived = await sdk.resend(t.tenantId, invitation.invitationId);
    expect(revived.status).toBe('PENDING');
    expect(validity(revived)).toBe(7 * DAY);
    expect(Date.parse(revived.expiresAt)).toBeGreaterThan(Date.now() + 6 * DAY);
  });

  it('resend of an expired invitation whose address was invited again since: 409 INVITATION_ALREADY_PENDING', async () => {
    const { t, email, invitation } = await invited();
    const sdk = sdkOf(h, t.owner).invitations;
    await lapse(invitation.invitationId);
    await sdk.create(t.tenantId, { email, role: 'STUDENT' });
    const res = sdk.resend(t.tenantId, invitation.invitationId);
    expect(await refusal(res)).toEqual(refused(409, 'INVITATION_ALREADY_PENDING'));
    expect(await storedStatus(invitation.invitationId)).toBe('EXPIRED');
  });

  it('resend to an address that became a member meanwhile: 409 MEMBERSHIP_ALREADY_EXISTS', async () => {
    const { t, email, invitation } = await invited();
    await sdkOf(h, t.owner).memberships.create(t.tenantId, { role: 'STUDENT', email });
    const res = sdkOf(h, t.owner).invitations.resend(t.tenantId, invitation.invitationId);
    expect(await refusal(res)).toEqual(refused(409, 'MEMBERSHIP_ALREADY_EXISTS'));
  });

  it('revoke: 200 REVOKED; then revoke or resend again, or revoke an expired one: 409 INVITATION_NOT_PENDING', async () => {
    const { t, invitation } = await invited();
    const sdk = sdkOf(h, t.owner).invitations;
    const revoked = await sdk.revoke(t.tenantId, invitation.invitationId);
    expect(revoked).toMatchObject({ status: 'REVOKED', acceptedAt: null });
    expect(await refusal(sdk.revoke(t.tenantId, invitation.invitationId))).toEqual(
      refused(409, 'INVITATION_NOT_PENDING'),
    );
    expect(await refusal(sdk.resend(t.tenantId, invitation.invitationId))).toEqual(
      refused(409, 'INVITATION_NOT_PENDING'),
    );
    const lapsed = await sdk.create(t.tenantId, { email: uniqueEmail(), role: 'STUDENT' });
    await lapse(lapsed.invitationId);
    expect(await refusal(sdk.revoke(t.tenantId, lapsed.invitationId))).toEqual(
      refused(409, 'INVITATION_NOT_PENDING'),
    );
  });

  it("hierarchy and scope: an ADMIN cannot touch an OWNER invitation (403); another tenant's is 404", async () => {
    const { t, invitation } = await invited('OWNER');
    const admin = sdkOf(h, (await addMember(h, t.tenantId, 'ADMIN')).actor).invitations;
    for (const call of [admin.resend, admin.revoke]) {
      const res = call(t.tenantId, invitation.invitationId);
      expect(await refusal(res)).toEqual(refused(403, 'ROLE_HIERARCHY_VIOLATION'));
    }
    const other = await createTenantFixture(h);
    const stranger = sdkOf(h, other.owner).invitations;
    for (const call of [stranger.resend, stranger.revoke]) {
      const res = call(other.tenantId, invitation.invitationId);
      expect(await refusal(res)).toEqual(refused(404, 'INVITATION_NOT_FOUND'));
    }
    expect(await storedStatus(invitation.invitationId)).toBe('PENDING');
    const body = await raw(`/tenants/${t.tenantId}/invitations/${invitation.invitationId}/revoke`, {
      token: t.owner.token,
      method: 'POST',
      body: '{"status":',
    });
    expect([body.status, body.body.error.code]).toEqual([400, 'INVALID_JSON']);
  });
});

describe('the invitee', () => {
  it("lists the pending invitations addressed to the verified email, with the tenant's name", async () => {
    const first = await invited('TEACHER');
    const second = await createTenantFixture(h);
    const upper = first.email.toUpperCase();
    const mine = await sdkOf(h, second.owner).invitations.create(second.tenantId, {
      email: upper,
      role: 'ADMIN',
    });
    const gone = await createTenantFixture(h);
    await sdkOf(h, gone.owner).invitations.create(gone.tenantId, { email: first.email, role: 'STUDENT' });
    await h.db.update(tenants).set({ deletedAt: sql`now()` }).where(eq(tenants.id, gone.tenantId));
    const lapsed = await createTenantFixture(h);
    const old = await sdkOf(h, lapsed.owner).invitations.create(lapsed.tenantId, {
      email: first.email,
      role: 'STUDENT',
    });
    await lapse(old.invitationId);
    const revoked = await createTenantFixture(h);
    const withdrawn = await sdkOf(h, revoked.owner).invitations.create(revoked.tenantId, {
      email: first.email,
      role: 'STUDENT',
    });
    await sdkOf(h, revoked.owner).invitations.revoke(revoked.tenantId, withdrawn.invitationId);

    const invitee = await signIn(first.email);
    const list = await invitee.sdk.invitations.listMine();
    expect(list.map((i) => MyInvitationSchema.strict().parse(i))).toEqual([
      { ...first.invitation, tenantSlug: first.t.slug, tenantName: `Tenant ${first.t.slug}` },
      { ...mine, tenantSlug: second.slug, tenantName: `Tenant ${second.slug}` },
    ]);
  });

  it('without a verified email, nothing is addressed to the caller: empty list, 404 on accept', async () => {
    const { email, invitation } = await invited();
    for (const claims of [{ email, emailVerified: false }, { email }, {}]) {
      const sdk = createClient({
        baseUrl: h.baseUrl,
        token: await h.token(unique('sub'), claims),
        retries: false,
      });
      expect(await sdk.invitations.listMine()).toEqual([]);
      expect(await refusal(sdk.invitations.accept(invitation.invitationId))).toEqual(
        refused(404, 'INVITATION_NOT_FOUND'),
      );
    }
    expect(await storedStatus(invitation.invitationId)).toBe('PENDING');
  });

  it('accept: 201 the new ACTIVE membership (ETag "1"), the invitation ACCEPTED, the tenant open to the member', async () => {
    const { t, email, invitation } = await invited('ADMIN', { displayName: 'Label' });
    const invitee = await signIn(email.toUpperCase());
    const res = await h
      .client(invitee.token)
      .invitations.accept({ params: { invitationId: invitation.invitationId }, body: undefined });
    expect(res.status).toBe(201);
    expect(res.headers.get('etag')).toBe('"1"');
    const membership = MembershipSchema.strict().parse((res.body as Json).data);
    expect(membership).toMatchObject({
      tenantId: t.tenantId,
      userId: invitee.userId,
      role: 'ADMIN',
      roleLevel: 30,
      version: 1,
      user: { userId: invitee.userId, email: email.toUpperCase(), displayName: 'Label' },
    });
    expect(membership.status).toBe('ACTIVE');
    const after = await sdkOf(h, t.owner).invitations.get(t.tenantId, invitation.invitationId);
    expect(after).toMatchObject({ status: 'ACCEPTED', acceptedUserId: invitee.userId });
    expect(Date.parse(after.acceptedAt as string)).toBe(Date.parse(after.updatedAt));
    expect((await invitee.sdk.me()).memberships.map((m) => m.tenantId)).toEqual([t.tenantId]);
    expect(await invitee.sdk.invitations.listMine()).toEqual([]);
    // As an ADMIN now, the invitee manages the tenant's invitations.
    expect((await invitee.sdk.invitations.list(t.tenantId)).items).toHaveLength(1);
    for (const again of [invitee.sdk.invitations.accept, invitee.sdk.invitations.decline]) {
      expect(await refusal(again(invitation.invitationId))).toEqual(refused(409, 'INVITATION_NOT_PENDING'));
    }
  });

  it("the invitation's name labels the membership only when the person has no name of their own", async () => {
    const named = await invited('STUDENT', { displayName: 'Label' });
    const person = await signIn(named.email, 'Own Name');
    const membership = await person.sdk.invitations.accept(named.invitation.invitationId);
    expect(membership.user.displayName).toBe('Own Name');
    const [row] = await h.db
      .select({ label: tenantMemberships.invitedDisplayName })
      .from(tenantMemberships)
      .where(eq(tenantMemberships.id, membership.tenantMembershipId));
    expect(row?.label).toBeNull();
  });

  it('decline: 200 DECLINED; then accept or decline again: 409 INVITATION_NOT_PENDING, no membership', async () => {
    const { t, email, invitation } = await invited();
    const invitee = await signIn(email);
    const declined = await invitee.sdk.invitations.decline(invitation.invitationId);
    expect(InvitationSchema.strict().parse(declined)).toMatchObject({
      status: 'DECLINED',
      acceptedUserId: null,
    });
    for (const again of [invitee.sdk.invitations.accept, invitee.sdk.invitations.decline]) {
      expect(await refusal(again(invitation.invitationId))).toEqual(refused(409, 'INVITATION_NOT_PENDING'));
    }
    expect(await refusal(sdkOf(h, t.owner).invitations.resend(t.tenantId, invitation.invitationId))).toEqual(
      refused(409, 'INVITATION_NOT_PENDING'),
    );
    expect((await invitee.sdk.me()).memberships).toEqual([]);
  });

  it('expired: 410 INVITATION_EXPIRED on accept and decline; resent, it can be accepted', async () => {
    const { t, email, invitation } = await invited();
    const invitee = await signIn(email);
    await lapse(invitation.invitationId);
    for (const answer of [invitee.sdk.invitations.accept, invitee.sdk.invitations.decline]) {
      expect(await refusal(answer(invitation.invitationId))).toEqual(refused(410, 'INVITATION_EXPIRED'));
    }
    expect(await invitee.sdk.invitations.listMine()).toEqual([]);
    await sdkOf(h, t.owner).invitations.resend(t.tenantId, invitation.invitationId);
    expect((await invitee.sdk.invitations.accept(invitation.invitationId)).role).toBe('TEACHER');
  });

  it('already a member (added meanwhile): 409 MEMBERSHIP_ALREADY_EXISTS, the invitation still PENDING', async () => {
    const { t, email, invitation } = await invited();
    const invitee = await signIn(email);
    await sdkOf(h, t.owner).memberships.create(t.tenantId, { role: 'STUDENT', userId: invitee.userId });
    const res = invitee.sdk.invitations.accept(invitation.invitationId);
    expect(await refusal(res)).toEqual(refused(409, 'MEMBERSHIP_ALREADY_EXISTS'));
    expect(await storedStatus(invitation.invitationId)).toBe('PENDING');
  });

  it("someone else's invitation, a look-alike address's, a deleted tenant's, or none: 404, nothing changed", async () => {
    const { t, email, invitation } = await invited();
    const [local, domain] = email.split('@') as [string, string];
    const lookAlike = await signIn(`${local.replace('i', '\u0130')}@${domain}`);
    const others = [
      sdkOf(h, superAdmin),
      sdkOf(h, t.owner),
      (await signIn(uniqueEmail())).sdk,
      lookAlike.sdk,
    ];
    for (const sdk of others) {
      for (const answer of [sdk.invitations.accept, sdk.invitations.decline]) {
        expect(await refusal(answer(invitation.invitationId))).toEqual(refused(404, 'INVITATION_NOT_FOUND'));
      }
    }
    const invitee = await signIn(email);
    expect(await refusal(invitee.sdk.invitations.accept(missingId()))).toEqual(
      refused(404, 'INVITATION_NOT_FOUND'),
    );
    await h.db.update(tenants).set({ deletedAt: sql`now()` }).where(eq(tenants.id, t.tenantId));
    expect(await refusal(invitee.sdk.invitations.accept(invitation.invitationId))).toEqual(
      refused(404, 'INVITATION_NOT_FOUND'),
    );
    expect(await storedStatus(invitation.invitationId)).toBe('PENDING');
    const notUuid = await raw('/me/invitations/..%2Fx/accept', { token: invitee.token, method: 'POST' });
    expect(notUuid.status).toBe(400);
  });

  it('accept with an Idempotency-Key, sent twice: the first answer replayed, one membership', async () => {
    const { t, email, invitation } = await invited();
    const invitee = await signIn(email);
    const options = { idempotencyKey: unique('key') };
    const first = await invitee.sdk.invitations.accept(invitation.invitationId, options);
    const second = await invitee.sdk.invitations.accept(invitation.invitationId, options);
    expect(second).toEqual(first);
    const members = await h.db
      .select()
      .from(tenantMemberships)
      .where(and(eq(tenantMemberships.tenantId, t.tenantId), eq(tenantMemberships.userId, invitee.userId)));
    expect(members).toHaveLength(1);
  });
});
