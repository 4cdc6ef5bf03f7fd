import { contract } from '@tms/contract';
import { isAppRoute } from '@ts-rest/core';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { preparedPer } from '../../src/db/prepared.js';
import { encodeCursor } from '../../src/pagination/cursor.js';
import {
  type Actor,
  addMember,
  createActor,
  createSuperAdmin,
  createTenantFixture,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { type AnyResponse, uniqueEmail } from '../support/memberships.js';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { DOMAIN_CASES, type DomainsFixture, domainsFixture } from './query-count-domains.js';
import { GUARDIAN_CASES, type GuardianFixture, guardianFixture } from './query-count-guardians.js';
import { JOINING_CASES, type JoiningFixture, joiningFixture } from './query-count-joining.js';
import { SCIM_CASES, type ScimFixture, scimFixture } from './query-count-scim.js';
import { WEBHOOK_CASES, type WebhookFixture, webhookFixture } from './query-count-webhooks.js';

/**
 * How many SQL statements each route sends, counted through HTTP with the driver's query log.
 * `statements` are the ones drizzle sends; a route that writes also opens one transaction, which
 * the drivers wrap in BEGIN and COMMIT without logging them: its round trips to the database are
 * statements + 2 x transactions. A change to these numbers is a change to the cost of the route.
 */
const statements: string[] = [];
let transactions = 0;
let database: TestDatabase;
let h: TestServer;

/** The app's handle, counting db.transaction() calls on the way. */
function countingTransactions(db: Database): Database {
  return new Proxy(db, {
    get(target, property) {
      if (property === 'transaction') {
        return (...args: Parameters<Database['transaction']>) => {
          transactions += 1;
          return target.transaction(...args);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A tenant whose OWNER offers it to a TEACHER (setup for the transfer routes). */
type Offer = {
  tenantId: string;
  owner: Actor;
  nominee: Actor;
  nomineeMembershipId: string;
  transferId: string;
};

type Fixture = {
  admin: Actor;
  invitee: Actor;
  invitationIds: string[];
  offers: Offer[];
  superAdmin: Actor;
  outsider: Actor;
  tenantId: string;
  studentIds: string[];
  freshUserIds: string[];
  spareTenantIds: string[];
  webhooks: WebhookFixture;
  scim: ScimFixture;
  joining: JoiningFixture;
  domains: DomainsFixture;
  guardians: GuardianFixture;
  rosterImportId: string;
};
let f: Fixture;

beforeAll(async () => {
  database = await createTestDatabase({ onQuery: (sql) => statements.push(sql) });
  h = await startTestServer({ database: { ...database, db: countingTransactions(database.db) } });
  const t = await createTenantFixture(h);
  const admin = (await addMember(h, t.tenantId, 'ADMIN')).actor;
  const studentIds: string[] = [];
  for (let i = 0; i < 4; i++) studentIds.push((await addMember(h, t.tenantId, 'STUDENT')).membershipId);
  const superAdmin = await createSuperAdmin(h);
  const spareTenantIds = [(await createTenantFixture(h)).tenantId, (await createTenantFixture(h)).tenantId];
  const freshUserIds = [(await createActor(h)).userId, (await createActor(h)).userId];
  // Invitations: to strangers (get, resend, revoke), then two to the invitee (accept, decline).
  const invitee = await createActor(h);
  const invitationIds: string[] = [];
  for (const [tenantId, email] of [
    [t.tenantId, uniqueEmail()],
    [t.tenantId, uniqueEmail()],
    [t.tenantId, invitee.email],
    [spareTenantIds[0] ?? '', invitee.email],
  ] as const) {
    const invited = await superAdmin.api.invitations.create({
      params: { tenantId },
      body: { email, role: 'STUDENT' },
    });
    if (invited.status !== 201) throw new Error(`invitation setup: ${JSON.stringify(invited.body)}`);
    invitationIds.push((invited.body as { data: { invitationId: string } }).data.invitationId);
  }
  // Four tenants offered to a TEACHER: one to create its offer in the count, three offered already.
  const offers: Offer[] = [];
  for (let i = 0; i < 4; i++) {
    const tenant = await createTenantFixture(h);
    const nominee = await addMember(h, tenant.tenantId, 'TEACHER');
    const offered =
      i === 0
        ? undefined
        : await tenant.owner.api.ownershipTransfers.create({
            params: { tenantId: tenant.tenantId },
            body: { toMembershipId: nominee.membershipId },
          });
    offers.push({
      tenantId: tenant.tenantId,
      owner: tenant.owner,
      nominee: nominee.actor,
      nomineeMembershipId: nominee.membershipId,
      transferId: (offered?.body as { data: { transferId: string } } | undefined)?.data.transferId ?? '',
    });
  }
  f = {
    admin,
    invitee,
    invitationIds,
    offers,
    superAdmin,
    outsider: await createActor(h),
    tenantId: t.tenantId,
    studentIds,
    freshUserIds,
    spareTenantIds,
    webhooks: await webhookFixture(h),
    scim: await scimFixture(h),
    joining: await joiningFixture(h),
    domains: await domainsFixture(h, superAdmin),
    guardians: await guardianFixture(h),
    rosterImportId: await rosterImportIn(superAdmin, t.tenantId),
  };
});

afterAll(async () => {
  await h?.close();
  await database?.close();
});

/** A roster import done earlier, for GET …/roster-imports/:importId. */
async function rosterImportIn(actor: Actor, tenantId: string): Promise<string> {
  const res = await actor.api.rosterImports.create({ params: { tenantId }, query: {}, body: { rows: [] } });
  if (res.status !== 200) throw new Error(`roster import setup: ${JSON.stringify(res.body)}`);
  return (res.body as { data: { importId: string } }).data.importId;
}

type Cost = { statements: number; transactions: number };

async function costOf(call: () => Promise<AnyResponse>, status: number): Promise<Cost & { sql: string[] }> {
  statements.length = 0;
  transactions = 0;
  const res = await call();
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return { statements: statements.length, transactions, sql: [...statements] };
}

type Case = {
  route: string;
  name: string;
  status: number;
  cost: Cost;
  call: (f: Fixture) => Promise<AnyResponse>;
};

const reads = (n: number): Cost => ({ statements: n, transactions: 0 });
const writes = (n: number): Cost => ({ statements: n, transactions: 1 });
const at = (f: Fixture, i: number) => ({ tenantId: f.tenantId, tenantMembershipId: f.studentIds[i] ?? '' });
const spare = (f: Fixture, i: number) => ({ tenantId: f.spareTenantIds[i] ?? '' });
const invitation = (f: Fixture, i: number) => ({
  tenantId: f.tenantId,
  invitationId: f.invitationIds[i] ?? '',
});
const offer = (f: Fixture, i: number) => f.offers[i] as Offer;

// A read is one statement: the caller (by the token's subject, with its role in the URL's tenant)
// and the data together. A membership write is, in its transaction: the tenant's lock, the caller
// with its role (read after the lock; both sent at once, one round trip), the membership it
// changes as it is (with the tenant's ACTIVE OWNERs when it is one: what the rules decide on,
// before the change), the change, and its audit event (one statement: the tenant's sequence and
// the event's row). A tenant write whose body is still arriving, or that brings an
// Idempotency-Key, reads its caller once more before it (its body comes whole here: not counted);
// a write outside a tenant always does (decidedFirst, in the files that count them).
// A subject seen for the first time adds its creation, on that request only.
/** Routes whose statements depend on more than their request, and where that is shown instead. */
const NOT_COUNTED: Record<string, string> = {
  'membershipExport.export':
    'streamed: a page of 1,000 rows per statement on PGlite, a cursor on PostgreSQL (exports/stream.test.ts)',
};

const CASES: Case[] = [
  // A roster import reads its caller outside any transaction (its body may take a while), then
  // one transaction: the tenant's lock, the caller again, the plan's two reads, the invited users,
  // the memberships, the events (with their outbox rows) and the import's record: a constant
  // number, whatever the file's size. A dry run rolls back after the plan, then records.
  {
    route: 'rosterImports.create',
    name: 'two new people: caller; lock, caller, plan (2), users, memberships, events, record',
    status: 200,
    cost: writes(9),
    call: (f) =>
      f.admin.api.rosterImports.create({
        params: { tenantId: f.tenantId },
        query: {},
        body: { rows: [{ email: uniqueEmail(), role: 'STUDENT' }, { email: uniqueEmail() }] },
      }),
  },
  {
    route: 'rosterImports.create',
    name: 'a dry run: caller; lock, caller, plan (2), rolled back; record',
    status: 200,
    cost: writes(6),
    call: (f) =>
      f.admin.api.rosterImports.create({
        params: { tenantId: f.tenantId },
        query: { dryRun: true },
        body: { rows: [{ email: uniqueEmail(), role: 'STUDENT' }] },
      }),
  },
  {
    route: 'rosterImports.get',
    name: 'caller with the import',
    status: 200,
    cost: reads(1),
    call: (f) =>
      f.admin.api.rosterImports.get({ params: { tenantId: f.tenantId, importId: f.rosterImportId } }),
  },
  {
    route: 'auditEvents.listForTenant',
    name: 'caller with the page',
    status: 200,
    cost: reads(1),
    call: (f) =>
      f.admin.api.auditEvents.listForTenant({ params: { tenantId: f.tenantId }, query: { limit: 5 } }),
  },
  {
    route: 'auditEvents.listAll',
    name: 'caller with the page, filtered',
    status: 200,
    cost: reads(1),
    call: (f) =>
      f.superAdmin.api.auditEvents.listAll({
        query: { tenantId: f.tenantId, action: 'membership.created', limit: 5 },
      }),
  },
  {
    route: 'health.live',
    name: 'liveness',
    status: 200,
    cost: reads(0),
    call: () => h.client().health.live(),
  },
  {
    route: 'health.ready',
    name: 'readiness',
    status: 200,
    cost: reads(1),
    call: () => h.client().health.ready(),
  },
  {
    route: 'health.report',
    name: 'report',
    status: 200,
    cost: reads(1),
    call: () => h.client().health.report(),
  },
  {
    route: 'me.get',
    name: 'known caller: caller with its memberships and guardianships',
    status: 200,
    cost: reads(1),
    call: (f) => f.admin.api.me.get(),
  },
  {
    route: 'me.get',
    name: 'first sight of a subject: caller with memberships and guardianships (none), insert user, again',
    status: 200,
    cost: reads(3),
    call: async () => h.client(await h.token(`new-${Date.now()}`)).me.get(),
  },
  {
    route: 'memberships.list',
    name: 'first page: caller with its role and the page',
    status: 200,
    cost: reads(1),
    call: (f) => f.admin.api.memberships.list({ params: { tenantId: f.tenantId }, query: { limit: 2 } }),
  },
  {
    route: 'memberships.list',
    name: 'page by cursor: caller with its role and the page',
    status: 200,
    cost: reads(1),
    call: (f) =>
      f.admin.api.memberships.list({
        params: { tenantId: f.tenantId },
        query: { limit: 2, cursor: encodeCursor(f.studentIds[0] ?? '') },
      }),
  },
  {
    route: 'memberships.get',
    name: 'ADMIN: caller with its role and the membership',
    status: 200,
    cost: reads(1),
    call: (f) => f.admin.api.memberships.get({ params: at(f, 0) }),
  },
  {
    route: 'memberships.get',
    name: 'super administrator: caller with the tenant and the membership',
    status: 200,
    cost: reads(1),
    call: (f) => f.superAdmin.api.memberships.get({ params: at(f, 0) }),
  },
  {
    route: 'memberships.get',
    name: 'refused to a non-member: caller with its role (the membership not read)',
    status: 403,
    cost: reads(1),
    call: (f) => f.outsider.api.memberships.get({ params: at(f, 0) }),
  },
  {
    route: 'memberships.get',
    name: 'no token: nothing',
    status: 401,
    cost: reads(0),
    call: (f) => h.client().memberships.get({ params: at(f, 0) }),
  },
  {
    route: 'memberships.create',
    name: 'by userId: lock tenant, caller with its role, the user and whether a member (read with the lock), insert with its audit event (one statement, sent with the COMMIT)',
    status: 201,
    cost: writes(4),
    call: (f) =>
      f.admin.api.memberships.create({
        params: { tenantId: f.tenantId },
        body: { role: 'STUDENT', userId: f.freshUserIds[0] ?? '' },
      }),
  },
  {
    route: 'memberships.create',
    name: 'by new email: lock, caller with its role, insert of user and membership, audit event',
    status: 201,
    cost: writes(4),
    call: (f) =>
      f.admin.api.memberships.create({
        params: { tenantId: f.tenantId },
        body: { role: 'STUDENT', email: uniqueEmail('invited') },
      }),
  },
  {
    route: 'memberships.update',
    name: 'lock, caller with its role, the membership to change, update, audit event',
    status: 200,
    cost: writes(5),
    call: (f) => f.admin.api.memberships.update({ params: at(f, 1), body: { role: 'TEACHER' } }),
  },
  {
    route: 'memberships.update',
    name: 'term dates: lock, caller with its role, the membership to change, update, audit event',
    status: 200,
    cost: writes(5),
    call: (f) =>
      f.admin.api.memberships.update({
        params: at(f, 1),
        body: { startsAt: '2020-01-01T00:00:00Z', endsAt: '2999-01-01T00:00:00Z' },
      }),
  },
  {
    route: 'memberships.suspend',
    name: 'lock, caller with its role, the membership to change, suspend, audit event',
    status: 200,
    cost: writes(5),
    call: (f) => f.admin.api.memberships.suspend({ params: at(f, 3), body: { reason: 'counted' } }),
  },
  {
    route: 'memberships.reactivate',
    name: 'lock, caller with its role, the membership to change, reactivate, audit event',
    status: 200,
    cost: writes(5),
    call: (f) => f.admin.api.memberships.reactivate({ params: at(f, 3), body: {} }),
  },
  {
    route: 'memberships.list',
    name: 'filtered by status: caller with its role and the page',
    status: 200,
    cost: reads(1),
    call: (f) =>
      f.admin.api.memberships.list({
        params: { tenantId: f.tenantId },
        query: { status: 'SUSPENDED', includeTotal: false },
      }),
  },
  {
    route: 'memberships.remove',
    name: "a STUDENT's without guardians, codes or guardian invitations (read with the membership): lock, caller with its role, the membership to change, delete with its audit event (one statement)",
    status: 204,
    cost: writes(4),
    call: (f) => f.admin.api.memberships.remove({ params: at(f, 2) }),
  },
  {
    route: 'memberships.list',
    name: 'sorted by email: caller with its role and the page',
    status: 200,
    cost: reads(1),
    call: (f) =>
      f.admin.api.memberships.list({ params: { tenantId: f.tenantId }, query: { limit: 2, sort: 'email' } }),
  },
  {
    route: 'memberships.list',
    name: 'includeTotal: the page, then the count (once access is granted)',
    status: 200,
    cost: reads(2),
    call: (f) =>
      f.admin.api.memberships.list({
        params: { tenantId: f.tenantId },
        query: { limit: 2, includeTotal: true },
      }),
  },
  {
    route: 'memberships.list',
    name: 'a cursor not ours: caller with its role, to decide before answering 400',
    status: 400,
    cost: reads(1),
    call: (f) =>
      f.admin.api.memberships.list({ params: { tenantId: f.tenantId }, query: { cursor: 'bm90LW91cnM' } }),
  },
  {
    route: 'memberships.create',
    name: 'first sight of the caller (once per subject): lock, no caller, the person, rolled back; insert user; lock, caller: a stranger, refused',
    status: 403,
    cost: { statements: 7, transactions: 2 },
    call: async (f) =>
      h.client(await h.token(`new-writer-${Date.now()}`)).memberships.create({
        params: { tenantId: f.tenantId },
        body: { role: 'STUDENT', userId: f.freshUserIds[0] ?? '' },
      }),
  },
  {
    route: 'memberships.update',
    name: 'lock, caller with its role, the membership: refused by the hierarchy before any change',
    status: 403,
    cost: writes(3),
    call: (f) => f.admin.api.memberships.update({ params: at(f, 3), body: { role: 'OWNER' } }),
  },
  {
    route: 'tenants.create',
    name: 'user; then owner, insert tenant, insert membership, two audit events',
    status: 201,
    cost: writes(6),
    call: (f) =>
      f.superAdmin.api.tenants.create({
        body: { name: 'Counted', slug: `counted-${Date.now()}`, owner: { userId: f.freshUserIds[1] ?? '' } },
      }),
  },
  {
    route: 'tenants.list',
    name: 'caller with the page',
    status: 200,
    cost: reads(1),
    call: (f) => f.superAdmin.api.tenants.list({ query: {} }),
  },
  {
    route: 'tenants.get',
    name: 'caller with the tenant',
    status: 200,
    cost: reads(1),
    call: (f) => f.superAdmin.api.tenants.get({ params: spare(f, 0) }),
  },
  {
    route: 'tenants.update',
    name: 'user; then lock the tenant (before), update, audit event',
    status: 200,
    cost: writes(4),
    call: (f) => f.superAdmin.api.tenants.update({ params: spare(f, 0), body: { name: 'Renamed' } }),
  },
  {
    route: 'tenants.remove',
    name: 'user; then lock the tenant (before), mark deleted, audit event',
    status: 204,
    cost: writes(4),
    call: (f) => f.superAdmin.api.tenants.remove({ params: spare(f, 1) }),
  },
  {
    route: 'tenants.list',
    name: 'the deleted ones: caller with the page',
    status: 200,
    cost: reads(1),
    call: (f) => f.superAdmin.api.tenants.list({ query: { status: 'DELETED' } }),
  },
  {
    route: 'tenants.restore',
    name: 'user; then lock the tenant (before), clear the deletion mark, audit event',
    status: 200,
    cost: writes(4),
    call: (f) => f.superAdmin.api.tenants.restore({ params: spare(f, 1), body: {} }),
  },
  {
    route: 'tenants.restore',
    name: 'an active tenant: user; then lock it, nothing to clear',
    status: 200,
    cost: writes(2),
    call: (f) => f.superAdmin.api.tenants.restore({ params: spare(f, 1), body: {} }),
  },
  {
    route: 'invitations.create',
    name: 'lock, caller with role, member or not, mark a lapsed one, insert, audit event',
    status: 201,
    cost: writes(6),
    call: (f) =>
      f.admin.api.invitations.create({
        params: { tenantId: f.tenantId },
        body: { email: uniqueEmail(), role: 'STUDENT' },
      }),
  },
  {
    route: 'invitations.list',
    name: 'caller with the page',
    status: 200,
    cost: reads(1),
    call: (f) => f.admin.api.invitations.list({ params: { tenantId: f.tenantId }, query: {} }),
  },
  {
    route: 'invitations.get',
    name: 'caller with the invitation',
    status: 200,
    cost: reads(1),
    call: (f) => f.admin.api.invitations.get({ params: invitation(f, 0) }),
  },
  {
    route: 'invitations.resend',
    name: 'lock, caller, invitation, member or not, pending slot, change, audit event',
    status: 200,
    cost: writes(7),
    call: (f) => f.admin.api.invitations.resend({ params: invitation(f, 0), body: {} }),
  },
  {
    route: 'invitations.revoke',
    name: 'lock, caller, invitation, change, audit event',
    status: 200,
    cost: writes(5),
    call: (f) => f.admin.api.invitations.revoke({ params: invitation(f, 1), body: {} }),
  },
  {
    route: 'invitations.listMine',
    name: 'caller with the invitations to its address',
    status: 200,
    cost: reads(1),
    call: (f) => f.invitee.api.invitations.listMine(),
  },
  {
    route: 'invitations.accept',
    name: 'caller, invitation, lock its tenant, read again, membership, invitation, two audit events',
    status: 201,
    cost: writes(9),
    call: (f) =>
      f.invitee.api.invitations.accept({ params: { invitationId: f.invitationIds[2] ?? '' }, body: {} }),
  },
  {
    route: 'invitations.decline',
    name: 'caller, invitation, lock its tenant, read again, change, audit event',
    status: 200,
    cost: writes(7),
    call: (f) =>
      f.invitee.api.invitations.decline({ params: { invitationId: f.invitationIds[3] ?? '' }, body: {} }),
  },
  {
    route: 'ownershipTransfers.create',
    name: 'lock, caller, initiator, nominee, mark a lapsed one, insert, audit event',
    status: 201,
    cost: writes(7),
    call: (f) =>
      offer(f, 0).owner.api.ownershipTransfers.create({
        params: { tenantId: offer(f, 0).tenantId },
        body: { toMembershipId: offer(f, 0).nomineeMembershipId },
      }),
  },
  {
    route: 'ownershipTransfers.get',
    name: 'caller with the transfer',
    status: 200,
    cost: reads(1),
    call: (f) =>
      offer(f, 1).owner.api.ownershipTransfers.get({
        params: { tenantId: offer(f, 1).tenantId, transferId: offer(f, 1).transferId },
      }),
  },
  {
    route: 'ownershipTransfers.cancel',
    name: 'lock, caller, transfer (before), change, audit event',
    status: 200,
    cost: writes(5),
    call: (f) =>
      offer(f, 1).owner.api.ownershipTransfers.cancel({
        params: { tenantId: offer(f, 1).tenantId, transferId: offer(f, 1).transferId },
        body: {},
      }),
  },
  {
    route: 'ownershipTransfers.listMine',
    name: 'caller with its nominations',
    status: 200,
    cost: reads(1),
    call: (f) => offer(f, 2).nominee.api.ownershipTransfers.listMine(),
  },
  {
    route: 'ownershipTransfers.accept',
    name: 'caller, lock its tenant, transfer with parties, both memberships (before), swap, mark accepted, three audit events',
    status: 200,
    cost: writes(9),
    call: (f) =>
      offer(f, 2).nominee.api.ownershipTransfers.accept({
        params: { transferId: offer(f, 2).transferId },
        body: {},
      }),
  },
  {
    route: 'ownershipTransfers.decline',
    name: 'caller, lock its tenant, transfer with parties, mark declined, audit event',
    status: 200,
    cost: writes(5),
    call: (f) =>
      offer(f, 3).nominee.api.ownershipTransfers.decline({
        params: { transferId: offer(f, 3).transferId },
        body: {},
      }),
  },
];

// The webhook routes and the user erasure (query-count-webhooks.ts).
CASES.push(...WEBHOOK_CASES.map((c) => ({ ...c, call: (f: Fixture) => c.call(f.webhooks) })));
// The SCIM tokens and group roles (query-count-scim.ts).
CASES.push(...SCIM_CASES.map((c) => ({ ...c, call: (f: Fixture) => c.call(f.scim) })));
CASES.push(...JOINING_CASES.map((c) => ({ ...c, call: (f: Fixture) => c.call(f.joining) })));
// The domain routes (query-count-domains.ts).
CASES.push(...DOMAIN_CASES.map((c) => ({ ...c, call: (f: Fixture) => c.call(f.domains) })));
// The guardian routes (query-count-guardians.ts).
CASES.push(...GUARDIAN_CASES.map((c) => ({ ...c, call: (f: Fixture) => c.call(f.guardians) })));

function routeNames(router: object, prefix = ''): string[] {
  return Object.entries(router).flatMap(([key, entry]) =>
    isAppRoute(entry) ? [`${prefix}${key}`] : routeNames(entry as object, `${prefix}${key}.`),
  );
}

describe('SQL statements per request', () => {
  for (const c of CASES) {
    const { statements: n, transactions: t } = c.cost;
    it(`${c.route}, ${c.name}: ${n} statements${t ? `, ${t} transaction` : ''}`, async () => {
      const cost = await costOf(() => c.call(f), c.status);
      expect({ statements: cost.statements, transactions: cost.transactions }, cost.sql.join('\n')).toEqual(
        c.cost,
      );
    });
  }

  it('covers every route of the contract', () => {
    const counted = [...CASES.map((c) => c.route), ...Object.keys(NOT_COUNTED)];
    expect(new Set(counted)).toEqual(new Set(routeNames(contract)));
  });
});

describe('prepared queries', () => {
  it('are built once per database handle, and once for all transactions, each on its own connection', async () => {
    let builds = 0;
    const query = preparedPer((db) =>
      db.select({ one: sql<number>`1` }).from(sql`(select 1) as "t"`).prepare(`counted_${++builds}`),
    );
    expect(query(database.db)).toBe(query(database.db));
    const clients: unknown[] = [];
    for (let i = 0; i < 2; i++) {
      await database.db.transaction(async (tx) => {
        const inTx = query(tx);
        clients.push((inTx as unknown as { client: unknown }).client);
        expect(await inTx.execute()).toEqual([{ one: 1 }]);
      });
    }
    expect(builds).toBe(2);
    expect(clients[0]).not.toBe(clients[1]);
  });
});
