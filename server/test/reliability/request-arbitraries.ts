import {
  AUDIT_ACTION_NAMES,
  contract,
  GUARDIAN_RELATIONSHIPS,
  INVITATION_STATUSES,
  MEMBERSHIP_STATUSES,
  ROLES,
  TENANT_STATUSES,
  WEBHOOK_DELIVERY_STATUSES,
} from '@tms/contract';
import { type AppRoute, isAppRoute } from '@ts-rest/core';
import fc from 'fast-check';

export const contractRoutes: AppRoute[] = Object.values(contract).flatMap((router) =>
  Object.values(router).filter((route): route is AppRoute => isAppRoute(route)),
);

export type FuzzContext = {
  tenantId: string;
  membershipId: string;
  invitationId: string;
  transferId: string;
  /** The tenant's endpoint and the platform's, each with a delivery. */
  webhookIds: string[];
  deliveryIds: string[];
  /** A user who may be erased (not the fuzzer's own caller). */
  userId: string;
  validToken: string;
  /** A join code of the tenant (its id and its characters) and a join request made with it. */
  joinCodeId: string;
  joinCode: string;
  joinRequestId: string;
  /** A mail domain of the tenant (verified, mode request). */
  domainId: string;
  /** A pending guardian invitation for the tenant's student. */
  guardianInvitationId: string;
};

/** The context's ids for a path parameter; any other name gets the membership's. */
const idsFor = (context: FuzzContext, name: string): string[] =>
  ({
    tenantId: [context.tenantId],
    invitationId: [context.invitationId],
    transferId: [context.transferId],
    webhookId: context.webhookIds,
    deliveryId: context.deliveryIds,
    userId: [context.userId],
    joinCodeId: [context.joinCodeId],
    joinRequestId: [context.joinRequestId],
    domainId: [context.domainId],
    guardianInvitationId: [context.guardianInvitationId],
    code: [context.joinCode, context.joinCode.toLowerCase().replace('-', '')],
  })[name] ?? [context.membershipId];

const weird = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '../../etc/passwd',
    '%00',
    '%',
    '%zz',
    '💥',
    'Ω≈ç√',
    '\u202e',
    ' ',
    '',
  ),
  fc.string({ minLength: 1000, maxLength: 5000 }),
  fc.uuid(),
  fc.integer().map(String),
);

const segment = (context: FuzzContext, name: string) =>
  fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...idsFor(context, name)) },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 3, arbitrary: weird.map((value) => encodeURIComponent(value)) },
    { weight: 1, arbitrary: weird },
  );

function pathFor(route: AppRoute, context: FuzzContext) {
  const names = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1] ?? '');
  return fc.tuple(...names.map((name) => segment(context, name))).map((values) => {
    let index = 0;
    return route.path.replace(/:(\w+)/g, () => values[index++] ?? '');
  });
}

const queryValue = fc.oneof(
  fc.constantFrom(
    '1',
    '20',
    '100',
    '0',
    '101',
    '-1',
    '1e3',
    'NaN',
    'null',
    '[]',
    ...ROLES,
    'owner',
    ...MEMBERSHIP_STATUSES,
    ...INVITATION_STATUSES,
    ...TENANT_STATUSES,
    'ACTIVE,SUSPENDED',
    ...AUDIT_ACTION_NAMES,
    ...WEBHOOK_DELIVERY_STATUSES,
    '2025-03-12T13:20:05.441Z',
    '2025-03-12',
    '00000000-0000-0000-0000-000000000000',
  ),
  weird.map((value) => encodeURIComponent(value)),
);
const queryKey = fc.oneof(
  fc.constantFrom('limit', 'cursor', 'q', 'role', 'status', 'status[]', 'limit[]', 'q[a]', '__proto__'),
  // The audit lists' filters.
  fc.constantFrom('action', 'actorUserId', 'targetId', 'since', 'until', 'tenantId', 'action[]'),
  // The guardian invitations' list filter.
  fc.constant('studentUserId'),
  fc.string({ maxLength: 10 }).map(encodeURIComponent),
);
const query = fc
  .array(fc.tuple(queryKey, queryValue), { maxLength: 6 })
  .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}` : ''));

/** JSON within the contract's shapes, near them, and far from them. */
const jsonBody = fc.oneof(
  fc.record(
    {
      name: weird,
      slug: fc.oneof(fc.stringMatching(/^[a-z0-9][a-z0-9-]{1,20}[a-z0-9]$/), weird),
      owner: fc.oneof(
        fc.record({ userId: fc.oneof(fc.uuid(), weird) }),
        fc.record({ email: fc.oneof(fc.emailAddress(), weird) }),
      ),
      role: fc.oneof(fc.constantFrom(...ROLES), weird),
      email: fc.oneof(fc.emailAddress(), weird),
      userId: fc.oneof(fc.uuid(), weird),
      displayName: weird,
      expiresInDays: fc.oneof(fc.integer({ min: -2, max: 40 }), fc.double(), weird),
      toMembershipId: fc.oneof(fc.uuid(), weird),
      reason: weird,
      startsAt: fc.oneof(
        fc.date().map((d) => (Number.isNaN(d.getTime()) ? 'x' : d.toISOString())),
        weird,
        fc.constant(null),
      ),
      endsAt: fc.oneof(
        fc.date().map((d) => (Number.isNaN(d.getTime()) ? 'x' : d.toISOString())),
        weird,
        fc.constant(null),
      ),
      // Webhook endpoints. Names are never resolved by the network (the harness's resolver), and
      // nothing is ever delivered (no test server runs the delivery worker).
      url: fc.oneof(
        fc.webUrl(),
        fc.constantFrom(
          'https://93.184.215.14/hook',
          'http://127.0.0.1:9/x',
          'http://localhost/x',
          'http://[::1]/x',
          'http://169.254.169.254/latest/meta-data',
          'https://user:pw@93.184.215.14/x',
        ),
        weird,
      ),
      events: fc.oneof(
        fc.subarray([...AUDIT_ACTION_NAMES, '*'], { minLength: 0 }),
        fc.array(weird, { maxLength: 3 }),
        weird,
      ),
      description: fc.oneof(weird, fc.constant(null)),
      enabled: fc.oneof(fc.boolean(), weird),
      // Join and pairing codes: typed as a person would, near the alphabet, and far from it; and
      // what a join code is made with, and what a guardian link says.
      code: fc.oneof(fc.stringMatching(/^[A-Za-z0-9]{4}-?[A-Za-z0-9]{4}$/), weird),
      relationship: fc.oneof(fc.constantFrom(...GUARDIAN_RELATIONSHIPS), weird),
      maxUses: fc.oneof(fc.integer({ min: -2, max: 20_000 }), fc.double(), weird),
      requiresApproval: fc.oneof(fc.boolean(), weird),
      // A tenant's mail domain: names a school might own, suffixes, consumer domains, addresses.
      domain: fc.oneof(
        fc.domain(),
        fc.constantFrom('gmail.com', 'co.uk', '127.0.0.1', '[::1]', 'MÜLLER.de.', 'a..b', 'x@y.edu'),
        weird,
      ),
      mode: fc.oneof(fc.constantFrom('join', 'request'), weird),
      includeSubdomains: fc.oneof(fc.boolean(), weird),
      expiresAt: fc.oneof(
        fc.date().map((d) => (Number.isNaN(d.getTime()) ? 'x' : d.toISOString())),
        weird,
        fc.constant(null),
      ),
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue(),
  fc.letrec((tie) => ({
    deep: fc.oneof({ depthSize: 'large' }, fc.constant(null), fc.array(tie('deep'), { maxLength: 2 })),
  })).deep,
  fc.constant(JSON.parse(`${'['.repeat(2000)}${']'.repeat(2000)}`)),
);

const rawBody = fc.oneof(
  { weight: 6, arbitrary: jsonBody.map((value) => Buffer.from(JSON.stringify(value) ?? 'null')) },
  { weight: 2, arbitrary: fc.string({ maxLength: 200 }).map((text) => Buffer.from(text)) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)) },
  { weight: 1, arbitrary: fc.constant(Buffer.alloc(120 * 1024, 'a')) },
);

const headerValue = fc.oneof(
  fc.string({ maxLength: 60 }).filter((value) => !/[\r\n]/.test(value)),
  fc.constantFrom('', ' ', '\u0000', 'null', '"1"', 'W/"1"', '*', '"999"'),
);

export function requestArbitrary(context: FuzzContext) {
  return fc.record({
    method: fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE') },
      { weight: 1, arbitrary: fc.constantFrom('PUT', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'get') },
    ),
    path: fc.oneof(
      { weight: 9, arbitrary: fc.constantFrom(...contractRoutes).chain((route) => pathFor(route, context)) },
      {
        weight: 1,
        arbitrary: fc.oneof(
          fc.constant('/'),
          weird.map((w) => `/${encodeURIComponent(w)}`),
          fc.constant('/admin/tenants/../../me'),
        ),
      },
    ),
    query,
    authorization: fc.oneof(
      { weight: 6, arbitrary: fc.constant(`Bearer ${context.validToken}`) },
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 2, arbitrary: headerValue.map((value) => `Bearer ${value}`) },
    ),
    contentType: fc.oneof(
      { weight: 6, arbitrary: fc.constant('application/json') },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          'text/plain',
          'application/json; charset=latin1',
          'application/x-www-form-urlencoded',
          'multipart/form-data',
          '',
        ),
      },
      { weight: 1, arbitrary: fc.constant(undefined) },
    ),
    body: fc.option(rawBody, { nil: undefined, freq: 3 }),
    extraHeaders: fc.array(
      fc.tuple(
        fc.constantFrom('x-tenant-id', 'if-match', 'x-request-id', 'x-forwarded-for', 'accept', 'x-unknown'),
        headerValue,
      ),
      { maxLength: 4 },
    ),
  });
}
