import { createClient } from '@tms/client';
import { HTTP_STATUS, RESPONSE_CODES, type ResponseCode } from '@tms/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createActor, createSuperAdmin, createTenantFixture } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { buildRequest, rawRequest } from './raw-http.js';
import { type FuzzContext, requestArbitrary } from './request-arbitraries.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const KNOWN = new Set<string>(RESPONSE_CODES);

let h: TestServer;
let port: number;
let context: FuzzContext;
beforeAll(async () => {
  h = await startTestServer();
  port = Number(new URL(h.baseUrl).port);
  const admin = await createSuperAdmin(h);
  const tenant = await createTenantFixture(h);
  const { membershipId, actor: student } = await addMember(h, tenant.tenantId, 'STUDENT');
  // A pending invitation and transfer, so that their routes are fuzzed past "not found" too.
  const sdk = createClient({ baseUrl: h.baseUrl, token: admin.token });
  const invitation = await sdk.invitations.create(tenant.tenantId, {
    email: 'fuzzed-invitee@example.test',
    role: 'STUDENT',
  });
  const transfer = await sdk.ownershipTransfers.create(tenant.tenantId, {
    toMembershipId: membershipId,
  });
  // An endpoint of the tenant's and one of the platform's, each with its creation's delivery.
  const hook = { url: 'https://93.184.215.14/fuzzed', events: ['*' as const] };
  const tenantHook = await sdk.webhooks.create(tenant.tenantId, hook);
  const platformHook = await sdk.platformWebhooks.create(hook);
  const deliveries = [
    ...(await sdk.webhooks.listDeliveries(tenant.tenantId, tenantHook.webhookId)).items,
    ...(await sdk.platformWebhooks.listDeliveries(platformHook.webhookId)).items,
  ];
  // A join code that requires approval, and a stranger's request made with it.
  const joinCode = await sdk.joinCodes.create(tenant.tenantId, { requiresApproval: true });
  const asker = await createActor(h);
  const asked = await createClient({ baseUrl: h.baseUrl, token: asker.token }).joinCodes.join(
    joinCode.code ?? '',
  );
  if (asked.outcome !== 'requested') throw new Error('fuzz setup: the join request was not made');
  // A verified mail domain of the tenant, so that its routes are fuzzed against a real one.
  const domain = await sdk.domains.create(tenant.tenantId, {
    domain: 'fuzzed-school.example.edu',
    mode: 'request',
  });
  await sdk.domains.verify(domain.domainId);
  // A pending guardian invitation for the student, for the routes that name one.
  const guardianInvitation = await sdk.guardianInvitations.create(tenant.tenantId, student.userId, {
    email: 'fuzzed-guardian@example.test',
    relationship: 'PARENT',
  });
  context = {
    tenantId: tenant.tenantId,
    membershipId,
    invitationId: invitation.invitationId,
    transferId: transfer.transferId,
    webhookIds: [tenantHook.webhookId, platformHook.webhookId],
    deliveryIds: deliveries.map((delivery) => delivery.deliveryId),
    userId: (await createActor(h)).userId,
    validToken: admin.token,
    joinCodeId: joinCode.joinCodeId,
    joinCode: joinCode.code ?? '',
    joinRequestId: asked.joinRequest.joinRequestId,
    domainId: domain.domainId,
    guardianInvitationId: guardianInvitation.guardianInvitationId,
  };
});
afterAll(() => h?.close());

let sent = 0;
const statuses = new Map<number, number>();

describe('fuzzing the HTTP surface', () => {
  it(`answers ${RUNS} generated requests without a 5xx, every error enveloped with a known code`, async () => {
    // Printed first, so that a failure can be replayed with FUZZ_SEED=<seed>.
    console.warn(`fuzz: seed ${SEED}, ${RUNS} runs (replay with FUZZ_SEED=${SEED})`);
    await fc.assert(
      fc.asyncProperty(requestArbitrary(context), async (req) => {
        const headers: [string, string][] = [...req.extraHeaders];
        if (req.authorization !== undefined) headers.push(['Authorization', req.authorization]);
        if (req.contentType !== undefined && req.body) headers.push(['Content-Type', req.contentType]);
        const res = await rawRequest(
          port,
          buildRequest(req.method, `${req.path}${req.query}`, headers, req.body),
        );
        sent += 1;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect(res.status, res.body).toBeLessThan(500);
        expect(res.headers['x-request-id']).toBeTruthy();
        if (req.method === 'HEAD' || res.status === 204 || res.status === 304) return;
        if (req.path.startsWith('/health') && res.status < 400) return;
        // A successful export is the file itself (CSV or NDJSON), not an envelope; its errors are.
        if (req.path.endsWith('/memberships/export') && res.status < 400) {
          expect(res.headers['content-type']).toMatch(/^(text\/csv|application\/x-ndjson)/);
          return;
        }
        const body = JSON.parse(res.body);
        expect(typeof body.success).toBe('boolean');
        if (res.status >= 400) {
          expect(KNOWN.has(body.error.code), res.body).toBe(true);
          expect(HTTP_STATUS[body.error.code as ResponseCode]).toBe(res.status);
          expect(res.body).not.toMatch(/\bat \w+ \(|node_modules|\.ts:\d/);
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    console.warn(`fuzz: ${sent} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    expect((await fetch(`${h.baseUrl}/health/live`)).status).toBe(200);
  });
});
