import { createClient } from '@tms/client';
import { type Actor, createActor, createTenantFixture } from '../support/factories.js';
import type { TestServer } from '../support/harness.js';
import type { AnyResponse } from '../support/memberships.js';

/*
 * The joining routes' cases of query-count.test.ts. A code's change is the tenant's lock, the
 * caller read after it, the code and its audit event. Redeeming a code names no tenant: it finds
 * the code's tenant by its HMAC, locks it, and reads what the rules decide on, one question each.
 */

export type JoiningFixture = {
  tenantId: string;
  owner: Actor;
  openCode: string;
  gatedCode: string;
  codeIds: string[];
  joiner: Actor;
  /** Strangers whose requests are pending: approve, reject, block, cancel. */
  askers: Actor[];
  requestIds: string[];
};

export async function joiningFixture(h: TestServer): Promise<JoiningFixture> {
  const t = await createTenantFixture(h);
  const sdk = createClient({ baseUrl: h.baseUrl, token: t.owner.token, retries: false });
  const open = await sdk.joinCodes.create(t.tenantId);
  const gated = await sdk.joinCodes.create(t.tenantId, { requiresApproval: true });
  const askers: Actor[] = [];
  const requestIds: string[] = [];
  for (let i = 0; i < 4; i++) {
    const asker = await createActor(h);
    const asked = await createClient({
      baseUrl: h.baseUrl,
      token: asker.token,
      retries: false,
    }).joinCodes.join(gated.code ?? '');
    if (asked.outcome !== 'requested') throw new Error('join request setup');
    askers.push(asker);
    requestIds.push(asked.joinRequest.joinRequestId);
  }
  return {
    tenantId: t.tenantId,
    owner: t.owner,
    openCode: open.code ?? '',
    gatedCode: gated.code ?? '',
    codeIds: [open.joinCodeId, gated.joinCodeId],
    joiner: await createActor(h),
    askers,
    requestIds,
  };
}

type Cost = { statements: number; transactions: number };
type JoiningCase = {
  route: string;
  name: string;
  status: number;
  cost: Cost;
  call: (j: JoiningFixture) => Promise<AnyResponse>;
};

const reads = (n: number): Cost => ({ statements: n, transactions: 0 });
const writes = (n: number): Cost => ({ statements: n, transactions: 1 });
/** A write outside a tenant's memberships: its caller read and decided before its body, then `n` in its transaction. */
const decidedFirst = (n: number): Cost => ({ statements: n + 1, transactions: 1 });
const request = (j: JoiningFixture, i: number) => ({
  tenantId: j.tenantId,
  joinRequestId: j.requestIds[i] ?? '',
});

export const JOINING_CASES: JoiningCase[] = [
  {
    route: 'joinCodes.create',
    name: 'lock, caller with its role, insert, audit event',
    status: 201,
    cost: writes(4),
    call: (j) => j.owner.api.joinCodes.create({ params: { tenantId: j.tenantId }, body: {} }),
  },
  {
    route: 'joinCodes.list',
    name: 'caller with its role and the page',
    status: 200,
    cost: reads(1),
    call: (j) => j.owner.api.joinCodes.list({ params: { tenantId: j.tenantId }, query: {} }),
  },
  {
    route: 'joinCodes.preview',
    name: 'caller with the code, its tenant and where the caller stands there',
    status: 200,
    cost: reads(1),
    call: (j) => j.joiner.api.joinCodes.preview({ params: { code: j.openCode } }),
  },
  {
    route: 'joinCodes.join',
    name: "caller decided before the body; then the code's tenant, lock, caller, the code, membership, block, pending request, spend a use, insert, audit event",
    status: 201,
    cost: decidedFirst(10),
    call: (j) => j.joiner.api.joinCodes.join({ body: { code: j.openCode } }),
  },
  {
    route: 'joinCodes.rotate',
    name: 'lock, caller with its role, the code, new characters, audit event',
    status: 200,
    cost: writes(5),
    call: (j) =>
      j.owner.api.joinCodes.rotate({
        params: { tenantId: j.tenantId, joinCodeId: j.codeIds[0] ?? '' },
        body: {},
      }),
  },
  {
    route: 'joinCodes.revoke',
    name: 'lock, caller with its role, the code, revoke, audit event',
    status: 204,
    cost: writes(5),
    call: (j) =>
      j.owner.api.joinCodes.revoke({ params: { tenantId: j.tenantId, joinCodeId: j.codeIds[0] ?? '' } }),
  },
  {
    route: 'joinRequests.list',
    name: 'caller with its role and the page',
    status: 200,
    cost: reads(1),
    call: (j) => j.owner.api.joinRequests.list({ params: { tenantId: j.tenantId }, query: {} }),
  },
  {
    route: 'joinRequests.approve',
    name: 'lock, caller, the request, insert membership, decide, the request after, two audit events',
    status: 201,
    cost: writes(8),
    call: (j) => j.owner.api.joinRequests.approve({ params: request(j, 0), body: {} }),
  },
  {
    route: 'joinRequests.reject',
    name: 'lock, caller, the request, decide, the request after, audit event',
    status: 200,
    cost: writes(6),
    call: (j) => j.owner.api.joinRequests.reject({ params: request(j, 1), body: {} }),
  },
  {
    route: 'joinRequests.block',
    name: 'lock, caller, the request, decide, the request after, block, audit event',
    status: 200,
    cost: writes(7),
    call: (j) => j.owner.api.joinRequests.block({ params: request(j, 2), body: {} }),
  },
  {
    route: 'joinRequests.unblock',
    name: 'lock, caller with its role, delete the block, audit event',
    status: 204,
    cost: writes(4),
    call: (j) =>
      j.owner.api.joinRequests.unblock({
        params: { tenantId: j.tenantId, userId: j.askers[2]?.userId ?? '' },
      }),
  },
  {
    route: 'joinRequests.listMine',
    name: 'caller with its requests',
    status: 200,
    cost: reads(1),
    call: (j) => (j.askers[3] as Actor).api.joinRequests.listMine(),
  },
  {
    route: 'joinRequests.cancel',
    name: "caller decided before the body; then the request's tenant, lock, caller, the request, decide, the request after, audit event",
    status: 200,
    cost: decidedFirst(7),
    call: (j) =>
      (j.askers[3] as Actor).api.joinRequests.cancel({
        params: { joinRequestId: j.requestIds[3] ?? '' },
        body: {},
      }),
  },
];
