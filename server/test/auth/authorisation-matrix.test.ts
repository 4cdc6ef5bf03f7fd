import { randomUUID } from 'node:crypto';
import { createClient } from '@tms/client';
import {
  type Contract,
  contract,
  emptyRosterSummary,
  HTTP_STATUS,
  type ResponseCode,
  type Role,
  type RouteAccess,
} from '@tms/contract';
import { type AppRoute, isAppRoute } from '@ts-rest/core';
import { eq, inArray, isNull, or } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flattenRoutes } from '../../src/app.js';
import {
  guardianInvitations,
  guardianLinks,
  invitations,
  joinBlocks,
  joinCodes,
  joinRequests,
  ownershipTransfers,
  pairingCodes,
  rosterImports,
  scimGroups,
  scimTokens,
  tenantDomains,
  tenantMemberships,
  tenants,
  webhookDeliveries,
  webhookEndpoints,
} from '../../src/db/schema.js';
import {
  type Actor,
  addMember,
  createActor,
  createSuperAdmin,
  createTenantFixture,
  unique,
} from '../support/factories.js';
import { startTestServer, TEST_SECRET, type TestServer } from '../support/harness.js';
import { sdkOf } from '../support/sdk.js';

/**
 * Every route of the contract, crossed with every kind of caller and every kind of target. Each
 * cell states the exact answer the access rules give (docs/access.md), and every refused request must leave the
 * tenants it names untouched.
 */
let h: TestServer;
beforeAll(async () => {
  // The world's endpoints point at 127.0.0.1's discard port: registering them needs private
  // networks allowed. Nothing delivers to them: no test server runs the delivery worker.
  // Redeeming pairing codes is not budgeted here: every cell's try comes from one address.
  h = await startTestServer({
    webhooks: { allowPrivateNetworks: true, requireHttps: false },
    codeTriesPerMinute: 0,
  });
});
afterAll(() => h?.close());

const CALLERS = [
  'anonymous',
  'malformed',
  'expired',
  'STUDENT',
  'TEACHER',
  'ADMIN',
  'OWNER',
  'superAdmin',
  'otherOwner',
  'guardian',
] as const;
const TARGETS = ['ownTenant', 'otherTenant', 'missingTenant', 'otherTenantsMembership'] as const;
type CallerKind = (typeof CALLERS)[number];
type Target = (typeof TARGETS)[number];

/**
 * The world of one cell: tenant A (the URL's, normally) with one member per role, and tenant B;
 * each with a webhook endpoint and one delivery of it, and one platform endpoint likewise.
 */
type World = {
  a: { tenantId: string; members: Record<Role, Actor>; studentMembershipId: string } & Pending & Hook & Ward;
  b: { tenantId: string; owner: Actor; studentMembershipId: string } & Pending & Hook & Ward;
  platform: Hook;
  superAdmin: Actor;
  outsider: Actor;
  /** A guardian of tenant A's STUDENT, and of nobody else: a member of no tenant. */
  guardian: Actor;
  /** A live pairing code of tenant A's STUDENT. */
  pairingCode: string;
};

/** A tenant's STUDENT, an ACTIVE guardian link to them, and a pending guardian invitation for them. */
type Ward = { studentUserId: string; guardianLinkId: string; guardianInvitationId: string };

/** A new user linked to the tenant's student through a pairing code its OWNER made. */
async function wardOf(owner: Actor, tenantId: string, studentUserId: string, guardian?: Actor) {
  const who = guardian ?? (await createActor(h));
  const { code } = await sdkOf(h, owner).guardians.createPairingCode(tenantId, studentUserId);
  const link = await sdkOf(h, who).guardians.redeem({ code, relationship: 'PARENT' });
  // Addressed to someone who is none of the matrix's callers: on /me, every caller is someone else.
  const guardianInvitationId = randomUUID();
  const email = `${unique('guardian-invitee')}@example.test`;
  await h.db.insert(guardianInvitations).values({
    id: guardianInvitationId,
    tenantId,
    studentUserId,
    email,
    emailCanonical: email,
    relationship: 'PARENT',
    source: 'API',
    expiresAt: new Date(Date.now() + 14 * DAY_MS),
  });
  return {
    guardian: who,
    ward: { studentUserId, guardianLinkId: link.guardianLinkId, guardianInvitationId },
  };
}

type Hook = { webhookId: string; deliveryId: string };
const MATRIX_HOOK = { url: 'http://127.0.0.1:9/matrix', events: ['*' as const] };

/** An endpoint registered through the API (the tenant's, or the platform's), and its first delivery. */
async function hookOf(actor: Actor, tenantId: string | null): Promise<Hook> {
  const sdk = createClient({ baseUrl: h.baseUrl, token: actor.token, retries: false });
  if (tenantId === null) {
    const { webhookId } = await sdk.platformWebhooks.create(MATRIX_HOOK);
    const [delivery] = (await sdk.platformWebhooks.listDeliveries(webhookId)).items;
    return { webhookId, deliveryId: delivery?.deliveryId ?? '' };
  }
  const { webhookId } = await sdk.webhooks.create(tenantId, MATRIX_HOOK);
  // Its own creation's event is its first delivery (it wants every event).
  const [delivery] = (await sdk.webhooks.listDeliveries(tenantId, webhookId)).items;
  return { webhookId, deliveryId: delivery?.deliveryId ?? '' };
}

/**
 * A tenant's pending invitation and ownership transfer, addressed to people who are none of the
 * matrix's callers: on the invitee's and nominee's own routes (/me/...), every caller is someone
 * else, and is told the invitation or transfer does not exist.
 */
type Pending = {
  invitationId: string;
  transferId: string | undefined;
  importId: string;
  scimTokenId: string;
  groupId: string;
} & Joining;

/**
 * A STUDENT join code, a pending join request (of someone outside the matrix) made with it, a
 * blocked person, and an unverified STUDENT domain.
 */
type Joining = { joinCodeId: string; joinRequestId: string; blockedUserId: string; domainId: string };

async function joiningIn(tenantId: string): Promise<Joining> {
  const joinCodeId = randomUUID();
  await h.db.insert(joinCodes).values({
    id: joinCodeId,
    tenantId,
    lookupHash: unique('hash'),
    sealedCode: unique('sealed'),
    role: 'STUDENT',
    expiresAt: new Date(Date.now() + 7 * DAY_MS),
  });
  const asker = await createActor(h);
  const joinRequestId = randomUUID();
  await h.db.insert(joinRequests).values({
    id: joinRequestId,
    tenantId,
    userId: asker.userId,
    joinCodeId,
    role: 'STUDENT',
    expiresAt: new Date(Date.now() + 7 * DAY_MS),
  });
  const blocked = await createActor(h);
  await h.db.insert(joinBlocks).values({ tenantId, userId: blocked.userId });
  const domainId = randomUUID();
  await h.db.insert(tenantDomains).values({
    id: domainId,
    tenantId,
    domain: `${unique('matrix')}.example.edu`,
    mode: 'join',
    role: 'STUDENT',
  });
  return { joinCodeId, joinRequestId, blockedUserId: blocked.userId, domainId };
}

const DAY_MS = 86_400_000;

async function pendingIn(
  tenantId: string,
  ownerMembershipId: string,
  withTransfer: boolean,
): Promise<Pending> {
  const invitationId = randomUUID();
  const importId = randomUUID();
  // A roster import done earlier (an empty file), for GET …/roster-imports/:importId.
  await h.db.insert(rosterImports).values({
    id: importId,
    tenantId,
    mode: 'add',
    dryRun: false,
    status: 'SUCCEEDED',
    summary: emptyRosterSummary(),
    finishedAt: new Date(),
  });
  // A SCIM token and a directory group, for the routes that name one.
  const scimTokenId = randomUUID();
  await h.db.insert(scimTokens).values({ id: scimTokenId, tenantId, tokenHash: unique('hash') });
  const groupId = randomUUID();
  await h.db.insert(scimGroups).values({ id: groupId, tenantId, displayName: unique('group') });
  const email = `${unique('invitee')}@example.test`;
  await h.db.insert(invitations).values({
    id: invitationId,
    tenantId,
    email,
    emailCanonical: email,
    role: 'STUDENT',
    expiresAt: new Date(Date.now() + 7 * DAY_MS),
  });
  const joining = await joiningIn(tenantId);
  if (!withTransfer)
    return { invitationId, transferId: undefined, importId, scimTokenId, groupId, ...joining };
  const nominee = await addMember(h, tenantId, 'TEACHER');
  const transferId = randomUUID();
  await h.db.insert(ownershipTransfers).values({
    id: transferId,
    tenantId,
    fromMembershipId: ownerMembershipId,
    toMembershipId: nominee.membershipId,
    expiresAt: new Date(Date.now() + 3 * DAY_MS),
  });
  return { invitationId, transferId, importId, scimTokenId, groupId, ...joining };
}

/** `withTransfer`: false for the route that creates one (a tenant holds one pending transfer at most). */
async function buildWorld(withTransfer: boolean): Promise<World> {
  const a = await createTenantFixture(h);
  const b = await createTenantFixture(h);
  const members = { OWNER: a.owner } as Record<Role, Actor>;
  let studentMembershipId = '';
  for (const role of ['ADMIN', 'TEACHER', 'STUDENT'] as const) {
    const added = await addMember(h, a.tenantId, role);
    members[role] = added.actor;
    if (role === 'STUDENT') studentMembershipId = added.membershipId;
  }
  const bStudent = await addMember(h, b.tenantId, 'STUDENT');
  const superAdmin = await createSuperAdmin(h);
  const aWard = await wardOf(a.owner, a.tenantId, members.STUDENT.userId);
  const bWard = await wardOf(b.owner, b.tenantId, bStudent.actor.userId);
  const { code: pairingCode } = await sdkOf(h, a.owner).guardians.createPairingCode(
    a.tenantId,
    members.STUDENT.userId,
  );
  // The platform may have 20 endpoints: the previous cells' go, this cell's comes.
  await h.db.delete(webhookEndpoints).where(isNull(webhookEndpoints.tenantId));
  return {
    a: {
      tenantId: a.tenantId,
      members,
      studentMembershipId,
      ...aWard.ward,
      ...(await pendingIn(a.tenantId, a.ownerMembershipId, withTransfer)),
      ...(await hookOf(a.owner, a.tenantId)),
    },
    b: {
      tenantId: b.tenantId,
      owner: b.owner,
      studentMembershipId: bStudent.membershipId,
      ...bWard.ward,
      ...(await pendingIn(b.tenantId, b.ownerMembershipId, withTransfer)),
      ...(await hookOf(b.owner, b.tenantId)),
    },
    platform: await hookOf(superAdmin, null),
    superAdmin,
    outsider: await createActor(h),
    guardian: aWard.guardian,
    pairingCode,
  };
}

async function authorization(kind: CallerKind, world: World): Promise<string | undefined> {
  switch (kind) {
    case 'anonymous':
      return undefined;
    case 'malformed':
      return 'Bearer this.is-not.a-token';
    case 'expired':
      return `Bearer ${await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(world.superAdmin.subject)
        .setExpirationTime(Math.floor(Date.now() / 1000) - 120)
        .sign(new TextEncoder().encode(TEST_SECRET))}`;
    case 'superAdmin':
      return `Bearer ${world.superAdmin.token}`;
    case 'otherOwner':
      return `Bearer ${world.b.owner.token}`;
    case 'guardian':
      return `Bearer ${world.guardian.token}`;
    default:
      return `Bearer ${world.a.members[kind].token}`;
  }
}

const MISSING_TENANT = '01900000-0000-7000-8000-00000000dead';

type Place = {
  tenantId: string;
  membershipId: string;
  invitationId: string;
  transferId: string;
  webhookId: string;
  deliveryId: string;
  importId: string;
  scimTokenId: string;
  groupId: string;
  studentUserId: string;
  guardianLinkId: string;
  guardianInvitationId: string;
} & Joining;

/** The URL's tenant and the ids under it for a target (a membership, an invitation, a transfer, an endpoint). */
function place(target: Target, world: World): Place {
  const ids = (t: World['a'] | World['b']) => ({
    membershipId: t.studentMembershipId,
    invitationId: t.invitationId,
    transferId: t.transferId ?? randomUUID(),
    webhookId: t.webhookId,
    deliveryId: t.deliveryId,
    importId: t.importId,
    scimTokenId: t.scimTokenId,
    groupId: t.groupId,
    joinCodeId: t.joinCodeId,
    joinRequestId: t.joinRequestId,
    blockedUserId: t.blockedUserId,
    domainId: t.domainId,
    studentUserId: t.studentUserId,
    guardianLinkId: t.guardianLinkId,
    guardianInvitationId: t.guardianInvitationId,
  });
  switch (target) {
    case 'ownTenant':
      return { tenantId: world.a.tenantId, ...ids(world.a) };
    case 'otherTenant':
      return { tenantId: world.b.tenantId, ...ids(world.b) };
    case 'missingTenant':
      return {
        tenantId: MISSING_TENANT,
        membershipId: randomUUID(),
        invitationId: randomUUID(),
        transferId: randomUUID(),
        webhookId: randomUUID(),
        deliveryId: randomUUID(),
        importId: randomUUID(),
        scimTokenId: randomUUID(),
        groupId: randomUUID(),
        joinCodeId: randomUUID(),
        joinRequestId: randomUUID(),
        blockedUserId: randomUUID(),
        domainId: randomUUID(),
        studentUserId: randomUUID(),
        guardianLinkId: randomUUID(),
        guardianInvitationId: randomUUID(),
      };
    case 'otherTenantsMembership':
      return { tenantId: world.a.tenantId, ...ids(world.b) };
  }
}

/** The id a route names under its tenant, and the code for one of another tenant (the scope rule). */
const CHILD_IDS = [
  [':tenantMembershipId', 'MEMBERSHIP_NOT_FOUND'],
  [':invitationId', 'INVITATION_NOT_FOUND'],
  [':transferId', 'TRANSFER_NOT_FOUND'],
  [':webhookId', 'WEBHOOK_NOT_FOUND'],
  [':importId', 'ROSTER_IMPORT_NOT_FOUND'],
  [':scimTokenId', 'SCIM_TOKEN_NOT_FOUND'],
  [':groupId', 'SCIM_GROUP_NOT_FOUND'],
  [':joinCodeId', 'JOIN_CODE_NOT_FOUND'],
  [':joinRequestId', 'JOIN_REQUEST_NOT_FOUND'],
  // The blocked person of another tenant is not blocked here.
  [':tenantId/join-blocks/:userId', 'JOIN_BLOCK_NOT_FOUND'],
  [':guardianLinkId', 'GUARDIAN_LINK_NOT_FOUND'],
  [':guardianInvitationId', 'GUARDIAN_INVITATION_NOT_FOUND'],
  // Another tenant's student is no student here (…/access/:userId names any user: not a child).
  ['/students/:userId', 'STUDENT_NOT_FOUND'],
] as const;
const childOf = (route: AppRoute) => CHILD_IDS.find(([param]) => route.path.includes(param));

type RouteKey = { [G in keyof Contract]: `${G & string}.${keyof Contract[G] & string}` }[keyof Contract];
/**
 * `success`: the answer of a caller the rules let through. `toOthers`: on an invitee's or nominee's
 * own routes, what every caller who is not that person gets (the matrix's callers never are).
 */
type Request = {
  path: string;
  body?: unknown;
  success: number;
  toOthers?: ResponseCode;
  /** On the caller's own routes, what a caller of this kind gets instead (its part in the world). */
  byCaller?: Partial<Record<CallerKind, ResponseCode>>;
};

/** One valid request per route; a route added to the contract without one here fails to compile. */
const REQUESTS = {
  'tenants.create': (_p, w) => ({
    path: '/admin/tenants',
    body: { name: 'Matrix', slug: unique('matrix'), owner: { userId: w.outsider.userId } },
    success: 201,
  }),
  'tenants.list': () => ({ path: '/admin/tenants?limit=1', success: 200 }),
  'tenants.get': (p) => ({ path: `/admin/tenants/${p.tenantId}`, success: 200 }),
  'tenants.update': (p) => ({
    path: `/admin/tenants/${p.tenantId}`,
    body: { name: 'Renamed by matrix' },
    success: 200,
  }),
  'tenants.remove': (p) => ({ path: `/admin/tenants/${p.tenantId}`, success: 204 }),
  'memberships.list': (p) => ({ path: `/tenants/${p.tenantId}/memberships`, success: 200 }),
  'membershipExport.export': (p) => ({ path: `/tenants/${p.tenantId}/memberships/export`, success: 200 }),
  'rosterImports.create': (p) => ({
    path: `/tenants/${p.tenantId}/roster-imports`,
    body: { rows: [{ email: `${unique('roster')}@example.test`, role: 'STUDENT' }] },
    success: 200,
  }),
  'rosterImports.get': (p) => ({ path: `/tenants/${p.tenantId}/roster-imports/${p.importId}`, success: 200 }),
  'memberships.get': (p) => ({ path: `/tenants/${p.tenantId}/memberships/${p.membershipId}`, success: 200 }),
  'memberships.create': (p, w) => ({
    path: `/tenants/${p.tenantId}/memberships`,
    body: { role: 'STUDENT', userId: w.outsider.userId },
    success: 201,
  }),
  'memberships.update': (p) => ({
    path: `/tenants/${p.tenantId}/memberships/${p.membershipId}`,
    body: { role: 'TEACHER' },
    success: 200,
  }),
  'memberships.remove': (p) => ({
    path: `/tenants/${p.tenantId}/memberships/${p.membershipId}`,
    success: 204,
  }),
  'tenants.restore': (p) => ({ path: `/admin/tenants/${p.tenantId}/restore`, success: 200 }),
  'memberships.suspend': (p) => ({
    path: `/tenants/${p.tenantId}/memberships/${p.membershipId}/suspend`,
    body: { reason: 'matrix' },
    success: 200,
  }),
  'memberships.reactivate': (p) => ({
    path: `/tenants/${p.tenantId}/memberships/${p.membershipId}/reactivate`,
    success: 200,
  }),
  'invitations.create': (p) => ({
    path: `/tenants/${p.tenantId}/invitations`,
    body: { email: `${unique('matrix')}@example.test`, role: 'STUDENT' },
    success: 201,
  }),
  'invitations.list': (p) => ({ path: `/tenants/${p.tenantId}/invitations`, success: 200 }),
  'invitations.get': (p) => ({ path: `/tenants/${p.tenantId}/invitations/${p.invitationId}`, success: 200 }),
  'invitations.resend': (p) => ({
    path: `/tenants/${p.tenantId}/invitations/${p.invitationId}/resend`,
    success: 200,
  }),
  'invitations.revoke': (p) => ({
    path: `/tenants/${p.tenantId}/invitations/${p.invitationId}/revoke`,
    success: 200,
  }),
  'invitations.listMine': () => ({ path: '/me/invitations', success: 200 }),
  'invitations.accept': (p) => ({
    path: `/me/invitations/${p.invitationId}/accept`,
    success: 201,
    toOthers: 'INVITATION_NOT_FOUND',
  }),
  'invitations.decline': (p) => ({
    path: `/me/invitations/${p.invitationId}/decline`,
    success: 200,
    toOthers: 'INVITATION_NOT_FOUND',
  }),
  'ownershipTransfers.create': (p) => ({
    path: `/tenants/${p.tenantId}/ownership-transfers`,
    body: { toMembershipId: p.membershipId },
    success: 201,
  }),
  'ownershipTransfers.get': (p) => ({
    path: `/tenants/${p.tenantId}/ownership-transfers/${p.transferId}`,
    success: 200,
  }),
  'ownershipTransfers.cancel': (p) => ({
    path: `/tenants/${p.tenantId}/ownership-transfers/${p.transferId}/cancel`,
    success: 200,
  }),
  'ownershipTransfers.listMine': () => ({ path: '/me/ownership-transfers', success: 200 }),
  'ownershipTransfers.accept': (p) => ({
    path: `/me/ownership-transfers/${p.transferId}/accept`,
    success: 200,
    toOthers: 'TRANSFER_NOT_FOUND',
  }),
  'ownershipTransfers.decline': (p) => ({
    path: `/me/ownership-transfers/${p.transferId}/decline`,
    success: 200,
    toOthers: 'TRANSFER_NOT_FOUND',
  }),
  'auditEvents.listForTenant': (p) => ({ path: `/tenants/${p.tenantId}/audit-events?limit=1`, success: 200 }),
  'auditEvents.listAll': () => ({ path: '/admin/audit-events?limit=1', success: 200 }),
  'webhooks.create': (p) => ({ path: `/tenants/${p.tenantId}/webhooks`, body: MATRIX_HOOK, success: 201 }),
  'webhooks.list': (p) => ({ path: `/tenants/${p.tenantId}/webhooks`, success: 200 }),
  'webhooks.get': (p) => ({ path: `/tenants/${p.tenantId}/webhooks/${p.webhookId}`, success: 200 }),
  'webhooks.update': (p) => ({
    path: `/tenants/${p.tenantId}/webhooks/${p.webhookId}`,
    body: { description: 'changed by the matrix' },
    success: 200,
  }),
  'webhooks.remove': (p) => ({ path: `/tenants/${p.tenantId}/webhooks/${p.webhookId}`, success: 204 }),
  'webhooks.rotateSecret': (p) => ({
    path: `/tenants/${p.tenantId}/webhooks/${p.webhookId}/rotate-secret`,
    success: 200,
  }),
  'webhooks.listDeliveries': (p) => ({
    path: `/tenants/${p.tenantId}/webhooks/${p.webhookId}/deliveries`,
    success: 200,
  }),
  'webhooks.retryDelivery': (p) => ({
    path: `/tenants/${p.tenantId}/webhooks/${p.webhookId}/deliveries/${p.deliveryId}/retry`,
    success: 200,
  }),
  'platformWebhooks.create': () => ({ path: '/admin/webhooks', body: MATRIX_HOOK, success: 201 }),
  'platformWebhooks.list': () => ({ path: '/admin/webhooks', success: 200 }),
  'platformWebhooks.get': (_p, w) => ({ path: `/admin/webhooks/${w.platform.webhookId}`, success: 200 }),
  'platformWebhooks.update': (_p, w) => ({
    path: `/admin/webhooks/${w.platform.webhookId}`,
    body: { enabled: false },
    success: 200,
  }),
  'platformWebhooks.remove': (_p, w) => ({ path: `/admin/webhooks/${w.platform.webhookId}`, success: 204 }),
  'platformWebhooks.rotateSecret': (_p, w) => ({
    path: `/admin/webhooks/${w.platform.webhookId}/rotate-secret`,
    success: 200,
  }),
  'platformWebhooks.listDeliveries': (_p, w) => ({
    path: `/admin/webhooks/${w.platform.webhookId}/deliveries`,
    success: 200,
  }),
  'platformWebhooks.retryDelivery': (_p, w) => ({
    path: `/admin/webhooks/${w.platform.webhookId}/deliveries/${w.platform.deliveryId}/retry`,
    success: 200,
  }),
  'users.erase': (_p, w) => ({ path: `/admin/users/${w.outsider.userId}`, success: 204 }),
  'me.get': () => ({ path: '/me', success: 200 }),
  'guardians.createPairingCode': (p) => ({
    path: `/tenants/${p.tenantId}/students/${p.studentUserId}/pairing-codes`,
    success: 201,
  }),
  'guardians.listStudentGuardians': (p) => ({
    path: `/tenants/${p.tenantId}/students/${p.studentUserId}/guardians`,
    success: 200,
  }),
  'guardians.listLinks': (p) => ({ path: `/tenants/${p.tenantId}/guardian-links`, success: 200 }),
  'guardians.removeLink': (p) => ({
    path: `/tenants/${p.tenantId}/guardian-links/${p.guardianLinkId}`,
    success: 200,
  }),
  'guardians.accessOf': (p) => ({ path: `/tenants/${p.tenantId}/access/${p.studentUserId}`, success: 200 }),
  'guardians.redeem': (_p, w) => ({
    path: '/me/guardian-links',
    body: { code: w.pairingCode, relationship: 'RELATIVE' },
    success: 201,
    // The code is tenant A's STUDENT's: they cannot guard themselves, and their guardian is one already.
    byCaller: { STUDENT: 'GUARDIAN_OF_SELF', guardian: 'GUARDIAN_LINK_ALREADY_EXISTS' },
  }),
  'guardians.listWards': () => ({ path: '/me/wards', success: 200 }),
  'guardians.listMyGuardians': () => ({ path: '/me/guardians', success: 200 }),
  'guardianInvitations.create': (p) => ({
    path: `/tenants/${p.tenantId}/students/${p.studentUserId}/guardian-invitations`,
    body: { email: `${unique('matrix')}@example.test`, relationship: 'PARENT' },
    success: 201,
  }),
  'guardianInvitations.list': (p) => ({ path: `/tenants/${p.tenantId}/guardian-invitations`, success: 200 }),
  'guardianInvitations.revoke': (p) => ({
    path: `/tenants/${p.tenantId}/guardian-invitations/${p.guardianInvitationId}/revoke`,
    success: 200,
  }),
  'guardianInvitations.listMine': () => ({ path: '/me/guardian-invitations', success: 200 }),
  'guardianInvitations.accept': (p) => ({
    path: `/me/guardian-invitations/${p.guardianInvitationId}/accept`,
    success: 201,
    toOthers: 'GUARDIAN_INVITATION_NOT_FOUND',
  }),
  'guardianInvitations.decline': (p) => ({
    path: `/me/guardian-invitations/${p.guardianInvitationId}/decline`,
    success: 200,
    toOthers: 'GUARDIAN_INVITATION_NOT_FOUND',
  }),
  'scimTokens.create': (p) => ({
    path: `/tenants/${p.tenantId}/scim-tokens`,
    body: { description: 'matrix' },
    success: 201,
  }),
  'scimTokens.list': (p) => ({ path: `/tenants/${p.tenantId}/scim-tokens`, success: 200 }),
  'scimTokens.revoke': (p) => ({ path: `/tenants/${p.tenantId}/scim-tokens/${p.scimTokenId}`, success: 204 }),
  'scimGroups.list': (p) => ({ path: `/tenants/${p.tenantId}/scim-groups`, success: 200 }),
  'scimGroups.setRole': (p) => ({
    path: `/tenants/${p.tenantId}/scim-groups/${p.groupId}/role`,
    body: { role: 'TEACHER' },
    success: 200,
  }),
  'scimGroups.unmapRole': (p) => ({
    path: `/tenants/${p.tenantId}/scim-groups/${p.groupId}/role`,
    success: 200,
  }),
  'joinCodes.create': (p) => ({ path: `/tenants/${p.tenantId}/join-codes`, body: {}, success: 201 }),
  'joinCodes.list': (p) => ({ path: `/tenants/${p.tenantId}/join-codes`, success: 200 }),
  'joinCodes.rotate': (p) => ({
    path: `/tenants/${p.tenantId}/join-codes/${p.joinCodeId}/rotate`,
    success: 200,
  }),
  'joinCodes.revoke': (p) => ({ path: `/tenants/${p.tenantId}/join-codes/${p.joinCodeId}`, success: 204 }),
  // No caller of the matrix holds a code: redeeming is for anyone signed in, and a wrong code is a 404.
  'joinCodes.join': () => ({
    path: '/join',
    body: { code: 'ABCD-EFGH' },
    success: 201,
    toOthers: 'JOIN_CODE_NOT_FOUND',
  }),
  'joinCodes.preview': () => ({ path: '/join/ABCD-EFGH', success: 200, toOthers: 'JOIN_CODE_NOT_FOUND' }),
  'joinRequests.list': (p) => ({ path: `/tenants/${p.tenantId}/join-requests`, success: 200 }),
  'joinRequests.approve': (p) => ({
    path: `/tenants/${p.tenantId}/join-requests/${p.joinRequestId}/approve`,
    body: {},
    success: 201,
  }),
  'joinRequests.reject': (p) => ({
    path: `/tenants/${p.tenantId}/join-requests/${p.joinRequestId}/reject`,
    success: 200,
  }),
  'joinRequests.block': (p) => ({
    path: `/tenants/${p.tenantId}/join-requests/${p.joinRequestId}/block`,
    success: 200,
  }),
  'joinRequests.unblock': (p) => ({
    path: `/tenants/${p.tenantId}/join-blocks/${p.blockedUserId}`,
    success: 204,
  }),
  'joinRequests.listMine': () => ({ path: '/me/join-requests', success: 200 }),
  'joinRequests.cancel': (p) => ({
    path: `/me/join-requests/${p.joinRequestId}/cancel`,
    success: 200,
    toOthers: 'JOIN_REQUEST_NOT_FOUND',
  }),
  'domains.create': (p) => ({
    path: `/tenants/${p.tenantId}/domains`,
    body: { domain: `${unique('matrix')}.example.edu`, mode: 'join' },
    success: 201,
  }),
  'domains.list': (p) => ({ path: `/tenants/${p.tenantId}/domains`, success: 200 }),
  'domains.get': (p) => ({ path: `/tenants/${p.tenantId}/domains/${p.domainId}`, success: 200 }),
  'domains.update': (p) => ({
    path: `/tenants/${p.tenantId}/domains/${p.domainId}`,
    body: { mode: 'request' },
    success: 200,
  }),
  'domains.remove': (p) => ({ path: `/tenants/${p.tenantId}/domains/${p.domainId}`, success: 204 }),
  'domains.verify': (p) => ({ path: `/admin/domains/${p.domainId}/verify`, success: 200 }),
  'health.live': () => ({ path: '/health/live', success: 200 }),
  'health.ready': () => ({ path: '/health/ready', success: 200 }),
  'health.report': () => ({ path: '/health', success: 200 }),
} satisfies Record<RouteKey, (p: Place, w: World) => Request>;

const routes: [RouteKey, AppRoute][] = Object.entries(contract).flatMap(([group, router]) =>
  Object.entries(router).flatMap(([name, route]) =>
    isAppRoute(route) ? [[`${group}.${name}` as RouteKey, route] as [RouteKey, AppRoute]] : [],
  ),
);

/**
 * Who may call each route, as docs/api.md's routes table and docs/access.md state it, written here
 * rather than read from the contract's `metadata.access`: the server enforces that declaration, so
 * a matrix deriving its expectations from it would pass a route declared with the wrong rule.
 * ("tenant OWNER" routes are `tenantAdmin`; the service refuses ADMINs, see OWNER_ONLY.)
 */
const ACCESS = {
  'tenants.create': 'superAdmin',
  'tenants.list': 'superAdmin',
  'tenants.get': 'superAdmin',
  'tenants.update': 'superAdmin',
  'tenants.remove': 'superAdmin',
  'tenants.restore': 'superAdmin',
  'memberships.list': 'tenantAdmin',
  'memberships.get': 'tenantAdmin',
  'memberships.create': 'tenantAdmin',
  'memberships.update': 'tenantAdmin',
  'memberships.remove': 'tenantAdmin',
  'memberships.suspend': 'tenantAdmin',
  'memberships.reactivate': 'tenantAdmin',
  'membershipExport.export': 'tenantAdmin',
  'rosterImports.create': 'tenantAdmin',
  'rosterImports.get': 'tenantAdmin',
  'invitations.create': 'tenantAdmin',
  'invitations.list': 'tenantAdmin',
  'invitations.get': 'tenantAdmin',
  'invitations.resend': 'tenantAdmin',
  'invitations.revoke': 'tenantAdmin',
  'invitations.listMine': 'authenticated',
  'invitations.accept': 'authenticated',
  'invitations.decline': 'authenticated',
  'ownershipTransfers.create': 'tenantAdmin',
  'ownershipTransfers.get': 'tenantAdmin',
  'ownershipTransfers.cancel': 'tenantAdmin',
  'ownershipTransfers.listMine': 'authenticated',
  'ownershipTransfers.accept': 'authenticated',
  'ownershipTransfers.decline': 'authenticated',
  'auditEvents.listForTenant': 'tenantAdmin',
  'auditEvents.listAll': 'superAdmin',
  'webhooks.create': 'tenantAdmin',
  'webhooks.list': 'tenantAdmin',
  'webhooks.get': 'tenantAdmin',
  'webhooks.update': 'tenantAdmin',
  'webhooks.remove': 'tenantAdmin',
  'webhooks.rotateSecret': 'tenantAdmin',
  'webhooks.listDeliveries': 'tenantAdmin',
  'webhooks.retryDelivery': 'tenantAdmin',
  'platformWebhooks.create': 'superAdmin',
  'platformWebhooks.list': 'superAdmin',
  'platformWebhooks.get': 'superAdmin',
  'platformWebhooks.update': 'superAdmin',
  'platformWebhooks.remove': 'superAdmin',
  'platformWebhooks.rotateSecret': 'superAdmin',
  'platformWebhooks.listDeliveries': 'superAdmin',
  'platformWebhooks.retryDelivery': 'superAdmin',
  'users.erase': 'superAdmin',
  'me.get': 'authenticated',
  'guardians.createPairingCode': 'tenantCaller',
  'guardians.listStudentGuardians': 'tenantTeacher',
  'guardians.listLinks': 'tenantTeacher',
  'guardians.removeLink': 'tenantCaller',
  'guardians.accessOf': 'tenantAdmin',
  'guardians.redeem': 'authenticated',
  'guardians.listWards': 'authenticated',
  'guardians.listMyGuardians': 'authenticated',
  'guardianInvitations.create': 'tenantTeacher',
  'guardianInvitations.list': 'tenantTeacher',
  'guardianInvitations.revoke': 'tenantTeacher',
  'guardianInvitations.listMine': 'authenticated',
  'guardianInvitations.accept': 'authenticated',
  'guardianInvitations.decline': 'authenticated',
  'scimTokens.create': 'tenantAdmin',
  'scimTokens.list': 'tenantAdmin',
  'scimTokens.revoke': 'tenantAdmin',
  'scimGroups.list': 'tenantAdmin',
  'scimGroups.setRole': 'tenantAdmin',
  'scimGroups.unmapRole': 'tenantAdmin',
  'joinCodes.create': 'tenantTeacher',
  'joinCodes.list': 'tenantTeacher',
  'joinCodes.rotate': 'tenantTeacher',
  'joinCodes.revoke': 'tenantTeacher',
  'joinCodes.join': 'authenticated',
  'joinCodes.preview': 'authenticated',
  'joinRequests.list': 'tenantTeacher',
  'joinRequests.approve': 'tenantTeacher',
  'joinRequests.reject': 'tenantTeacher',
  'joinRequests.block': 'tenantTeacher',
  'joinRequests.unblock': 'tenantAdmin',
  'joinRequests.listMine': 'authenticated',
  'joinRequests.cancel': 'authenticated',
  'domains.create': 'tenantAdmin',
  'domains.list': 'tenantAdmin',
  'domains.get': 'tenantAdmin',
  'domains.update': 'tenantAdmin',
  'domains.remove': 'tenantAdmin',
  'domains.verify': 'superAdmin',
  'health.live': 'public',
  'health.ready': 'public',
  'health.report': 'public',
} satisfies Record<RouteKey, RouteAccess>;

/** The role a caller kind holds in the URL's tenant. */
function roleIn(kind: CallerKind, target: Target): Role | undefined {
  if (kind === 'otherOwner') return target === 'otherTenant' ? 'OWNER' : undefined;
  if (kind === 'STUDENT' || kind === 'TEACHER' || kind === 'ADMIN' || kind === 'OWNER') {
    return target === 'ownTenant' || target === 'otherTenantsMembership' ? kind : undefined;
  }
  return undefined;
}

/** Tenant routes for OWNERs only (the service's rule on top of the route's `tenantAdmin`): ADMINs are refused. */
const OWNER_ONLY = new Set<RouteKey>([
  'ownershipTransfers.create',
  'ownershipTransfers.cancel',
  'webhooks.create',
  'webhooks.update',
  'webhooks.remove',
  'webhooks.rotateSecret',
  'webhooks.retryDelivery',
]);

/** The access rules of docs/access.md, cell by cell. */
function expected(
  key: RouteKey,
  route: AppRoute,
  kind: CallerKind,
  target: Target,
  request: Request,
): number | ResponseCode {
  const { success } = request;
  const access = ACCESS[key];
  if (access === 'public') return success;
  if (kind === 'anonymous' || kind === 'malformed' || kind === 'expired') return 'UNAUTHENTICATED';
  if (access === 'authenticated') return request.byCaller?.[kind] ?? request.toOthers ?? success;
  const takesTenant = route.path.includes(':tenantId');
  const child = childOf(route);
  if (access === 'superAdmin') {
    if (kind !== 'superAdmin') return 'SUPER_ADMIN_REQUIRED';
    return takesTenant && target === 'missingTenant' ? 'TENANT_NOT_FOUND' : success;
  }
  if (kind === 'superAdmin') {
    if (target === 'missingTenant') return 'TENANT_NOT_FOUND';
  } else {
    const role = roleIn(kind, target);
    if (access === 'tenantCaller') return callersOwn(key, kind, target, role, request);
    if (!role) return 'TENANT_ACCESS_DENIED';
    if (role === 'STUDENT' && access === 'tenantTeacher') return 'INSUFFICIENT_ROLE';
    if ((role === 'STUDENT' || role === 'TEACHER') && access === 'tenantAdmin') return 'INSUFFICIENT_ROLE';
  }
  if (OWNER_ONLY.has(key) && kind !== 'superAdmin' && roleIn(kind, target) !== 'OWNER')
    return 'INSUFFICIENT_ROLE';
  if (child && target === 'otherTenantsMembership') return child[1];
  return success;
}

/**
 * The tenantCaller routes (docs/guardians.md): a pairing code is the student's own to make, or a
 * TEACHER's and above; a link is revoked by an ADMIN and above, or by its own guardian, who is no
 * member. Anyone else with no role in the tenant is refused as a stranger.
 */
function callersOwn(
  key: RouteKey,
  kind: CallerKind,
  target: Target,
  role: Role | undefined,
  request: Request,
): number | ResponseCode {
  const child = target === 'otherTenantsMembership' ? childOf(ROUTE_OF[key])?.[1] : undefined;
  if (key === 'guardians.removeLink') {
    if (kind === 'guardian' && target === 'ownTenant') return request.success;
    if (!role) return 'TENANT_ACCESS_DENIED';
    if (role === 'STUDENT' || role === 'TEACHER') return 'INSUFFICIENT_ROLE';
    return child ?? request.success;
  }
  if (!role) return 'TENANT_ACCESS_DENIED';
  // The URL's student is tenant A's STUDENT on ownTenant, tenant B's on otherTenantsMembership.
  if (role === 'STUDENT') return target === 'ownTenant' ? request.success : 'INSUFFICIENT_ROLE';
  return child ?? request.success;
}

/** Targets that mean something different for a route; the others would repeat a cell. */
function targetsOf(route: AppRoute): readonly Target[] {
  if (childOf(route) && route.path.includes(':tenantId')) return TARGETS;
  if (route.path.includes(':tenantId')) return ['ownTenant', 'otherTenant', 'missingTenant'];
  return ['ownTenant'];
}

async function snapshot(world: World) {
  const ids = [world.a.tenantId, world.b.tenantId];
  const tenantRows = await h.db.select().from(tenants).where(inArray(tenants.id, ids)).orderBy(tenants.id);
  const membershipRows = await h.db
    .select()
    .from(tenantMemberships)
    .where(inArray(tenantMemberships.tenantId, ids))
    .orderBy(tenantMemberships.id);
  const invitationRows = await h.db
    .select()
    .from(invitations)
    .where(inArray(invitations.tenantId, ids))
    .orderBy(invitations.id);
  const transferRows = await h.db
    .select()
    .from(ownershipTransfers)
    .where(inArray(ownershipTransfers.tenantId, ids))
    .orderBy(ownershipTransfers.id);
  // The tenants' endpoints and the platform's, secrets included, and their deliveries.
  const endpointRows = await h.db
    .select()
    .from(webhookEndpoints)
    .where(or(inArray(webhookEndpoints.tenantId, ids), isNull(webhookEndpoints.tenantId)))
    .orderBy(webhookEndpoints.id);
  const deliveryRows = await h.db
    .select()
    .from(webhookDeliveries)
    .where(
      inArray(
        webhookDeliveries.endpointId,
        endpointRows.map((row) => row.id),
      ),
    )
    .orderBy(webhookDeliveries.id);
  const scimRows = [
    await h.db.select().from(scimTokens).where(inArray(scimTokens.tenantId, ids)).orderBy(scimTokens.id),
    await h.db.select().from(scimGroups).where(inArray(scimGroups.tenantId, ids)).orderBy(scimGroups.id),
  ];
  const joiningRows = [
    await h.db.select().from(joinCodes).where(inArray(joinCodes.tenantId, ids)).orderBy(joinCodes.id),
    await h.db
      .select()
      .from(joinRequests)
      .where(inArray(joinRequests.tenantId, ids))
      .orderBy(joinRequests.id),
    await h.db
      .select()
      .from(joinBlocks)
      .where(inArray(joinBlocks.tenantId, ids))
      .orderBy(joinBlocks.tenantId, joinBlocks.userId),
    await h.db
      .select()
      .from(tenantDomains)
      .where(inArray(tenantDomains.tenantId, ids))
      .orderBy(tenantDomains.id),
  ];
  const importRows = await h.db
    .select()
    .from(rosterImports)
    .where(inArray(rosterImports.tenantId, ids))
    .orderBy(rosterImports.id);
  const guardianRows = [
    await h.db
      .select()
      .from(guardianLinks)
      .where(inArray(guardianLinks.tenantId, ids))
      .orderBy(guardianLinks.id),
    await h.db
      .select()
      .from(pairingCodes)
      .where(inArray(pairingCodes.tenantId, ids))
      .orderBy(pairingCodes.id),
    await h.db
      .select()
      .from(guardianInvitations)
      .where(inArray(guardianInvitations.tenantId, ids))
      .orderBy(guardianInvitations.id),
  ];
  return JSON.stringify({
    guardianRows,
    scimRows,
    joiningRows,
    tenantRows,
    importRows,
    membershipRows,
    invitationRows,
    transferRows,
    endpointRows,
    deliveryRows,
  });
}

/**
 * A world that its cell left as it found it serves the next cell with the same `withTransfer`:
 * building one is most of a cell's time, and most cells are refusals. Only a refusal (its
 * snapshot checked unchanged) or a read gives its world back; any other success builds anew.
 */
const spareWorlds = new Map<boolean, World>();
async function worldFor(withTransfer: boolean): Promise<World> {
  const spare = spareWorlds.get(withTransfer);
  spareWorlds.delete(withTransfer);
  return spare ?? buildWorld(withTransfer);
}

const ROUTE_OF = Object.fromEntries(routes) as Record<RouteKey, AppRoute>;

const cells = routes.flatMap(([key, route]) =>
  CALLERS.flatMap((kind) => targetsOf(route).map((target) => [key, kind, target, route] as const)),
);

describe('the authorisation matrix', () => {
  it('covers every route of the contract', () => {
    expect(routes.map(([key]) => key).sort()).toEqual(Object.keys(REQUESTS).sort());
  });

  it('pins the access rule of every route of the contract, once', () => {
    // Counted against the server's own list too: a route nested deeper than `group.name` would
    // be missing from `routes`, and so from both tables, unseen.
    expect(routes).toHaveLength(flattenRoutes(contract).length);
    expect(Object.keys(ACCESS).sort()).toEqual(routes.map(([key]) => key).sort());
  });

  it.each(routes)('%s declares the access rule the docs give it', (key, route) => {
    const declared = (route.metadata as { access?: string } | undefined)?.access;
    expect(declared, `${key}: the contract declares ${declared}, the docs say ${ACCESS[key]}`).toBe(
      ACCESS[key],
    );
  });

  it.each(
    cells.map(([key, kind, target, route]) => [`${route.method} ${key}`, kind, target, key, route] as const),
  )('%s as %s on %s', async (_name, kind, target, key, route) => {
    const withTransfer = key !== 'ownershipTransfers.create';
    const world = await worldFor(withTransfer);
    const request: Request = REQUESTS[key](place(target, world), world);
    const want = expected(key, route, kind, target, request);
    const before = await snapshot(world);
    const auth = await authorization(kind, world);
    const res = await fetch(`${h.baseUrl}${request.path}`, {
      method: route.method,
      headers: {
        ...(auth ? { authorization: auth } : {}),
        ...(request.body ? { 'content-type': 'application/json' } : {}),
      },
      body: request.body ? JSON.stringify(request.body) : undefined,
    });
    const text = await res.text();
    if (typeof want === 'number') {
      expect(res.status, text).toBe(want);
      if (route.method === 'GET') spareWorlds.set(withTransfer, world);
      return;
    }
    expect(res.status, text).toBe(HTTP_STATUS[want]);
    expect(JSON.parse(text).error.code).toBe(want);
    expect(await snapshot(world)).toBe(before);
    // A refused caller must not even have been half-served: the tenant is still there, intact.
    const [still] = await h.db
      .select({ id: tenants.id })
      .from(tenants)
      .where(eq(tenants.id, world.a.tenantId));
    expect(still).toBeDefined();
    spareWorlds.set(withTransfer, world);
  });
});
