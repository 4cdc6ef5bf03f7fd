import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument, OPERATION_IDS } from '../../src/openapi/document.js';
import { createActor, createSuperAdmin } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';

/*
 * The response headers of the OpenAPI document against a live server (with a rate limiter, as in
 * production by default): every header the document declares for an answer is sent with it, and
 * none of the headers it documents is sent where it is not declared.
 */

type Response = { headers?: Record<string, unknown> };
type Document = {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
  components: { headers: Record<string, unknown>; responses: Record<string, Response> };
};
const doc = JSON.parse(JSON.stringify(buildOpenApiDocument('test'))) as Document;

const operationsById = new Map(
  Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((op) => [op.operationId, op])),
);
const declaredHeaders = (operationId: string, status: number): string[] => {
  const op = operationsById.get(operationId);
  if (!op) throw new Error(`no operation ${operationId}`);
  let response = op.responses[String(status)] as Response | { $ref: string } | undefined;
  if (response && '$ref' in response)
    response = doc.components.responses[response.$ref.replace('#/components/responses/', '')];
  if (!response) throw new Error(`${operationId} declares no ${status}`);
  return Object.keys(response.headers ?? {}).map((name) => name.toLowerCase());
};

// Every header the document declares somewhere: those are the ones checked both ways.
const DOCUMENTED = [
  ...new Set(
    Object.values(doc.paths).flatMap((methods) =>
      Object.values(methods).flatMap((op) =>
        Object.keys(op.responses).flatMap((status) => declaredHeaders(op.operationId, Number(status))),
      ),
    ),
  ),
];

let h: TestServer;
let limited: TestServer;
beforeAll(async () => {
  h = await startTestServer({ rateLimit: { max: 1000, windowSeconds: 3600 } });
  limited = await startTestServer({ database: h.database, rateLimit: { max: 1, windowSeconds: 3600 } });
});
afterAll(async () => {
  await limited?.close();
  await h?.close();
});

type Call = { operationId: string; response: globalThis.Response; replayed?: boolean };

function expectDeclared({ operationId, response, replayed = false }: Call) {
  const where = `${operationId} ${response.status}`;
  const declared = declaredHeaders(operationId, response.status);
  for (const name of DOCUMENTED) {
    const sent = response.headers.has(name);
    if (sent) expect(declared, `${where} sends ${name}`).toContain(name);
    // Idempotent-Replayed is declared on every 201 of a POST, and sent on a replay only.
    const expected = name === 'idempotent-replayed' ? replayed : declared.includes(name);
    expect(sent, `${where}: ${name}`).toBe(expected);
  }
}

describe('the response headers of the OpenAPI document, on a live server', () => {
  it('documents at least the headers the issue asked for', () => {
    expect(DOCUMENTED).toEqual(
      expect.arrayContaining([
        'x-request-id',
        'etag',
        'ratelimit-limit',
        'ratelimit-remaining',
        'ratelimit-reset',
        'retry-after',
        'www-authenticate',
        'idempotent-replayed',
      ]),
    );
    // Every operation of the contract is exercised below.
    expect(new Set(Object.values(OPERATION_IDS))).toEqual(new Set(operationsById.keys()));
  });

  it('sends what each answer declares, on every operation, errors included', async () => {
    const admin = await createSuperAdmin(h);
    const calls: Call[] = [];
    const call = async (
      operationId: string,
      method: string,
      path: string,
      options: {
        body?: unknown;
        headers?: Record<string, string>;
        token?: string | null;
        server?: TestServer;
      } = {},
    ) => {
      const token = options.token === undefined ? admin.token : options.token;
      const response = await fetch(`${(options.server ?? h).baseUrl}${path}`, {
        method,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...options.headers,
        },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      });
      calls.push({ operationId, response, replayed: response.headers.has('idempotent-replayed') });
      return response;
    };
    const json = async (response: globalThis.Response) =>
      ((await response.clone().json()) as { data: Record<string, string> }).data;

    const suffix = randomUUID().slice(0, 8);
    const tenantBody = {
      name: 'Headers School',
      slug: `headers-${suffix}`,
      owner: { email: `o-${suffix}@h.example` },
    };
    const key = { 'idempotency-key': `headers-${suffix}` };
    const created = await call('createTenant', 'POST', '/admin/tenants', { body: tenantBody, headers: key });
    expect(created.status).toBe(201);
    const replay = await call('createTenant', 'POST', '/admin/tenants', { body: tenantBody, headers: key });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const { tenantId } = await json(created);
    const tenant = `/admin/tenants/${tenantId}`;
    await call('listTenants', 'GET', '/admin/tenants?limit=1');
    await call('getTenant', 'GET', tenant);
    await call('updateTenant', 'PATCH', tenant, {
      body: { name: 'Headers Academy' },
      headers: { 'if-match': '"1"' },
    });

    const memberships = `/tenants/${tenantId}/memberships`;
    const added = await call('createMembership', 'POST', memberships, {
      body: { role: 'TEACHER', email: `t-${suffix}@h.example` },
    });
    const member = `${memberships}/${(await json(added)).tenantMembershipId}`;
    const listed = await call('listMemberships', 'GET', `${memberships}?sort=email&includeTotal=true`);
    const owner = (
      (await listed.clone().json()) as { data: { role: string; tenantMembershipId: string }[] }
    ).data.find((m) => m.role === 'OWNER');
    await call('getMembership', 'GET', member);
    await call('updateMembership', 'PATCH', member, {
      body: { role: 'ADMIN' },
      headers: { 'if-match': '"1"' },
    });
    await call('deleteMembership', 'DELETE', member, { headers: { 'if-match': '"2"' } });
    await call('getMe', 'GET', '/me');
    await call('getLiveness', 'GET', '/health/live', { token: null });
    await call('getReadiness', 'GET', '/health/ready', { token: null });
    await call('getHealth', 'GET', '/health', { token: null });

    // Errors: 400, 401 (no token; a bad one), 404, 409 (LAST_OWNER), 412, 415, 422, 429.
    await call('listMemberships', 'GET', `${memberships}?limit=0`);
    await call('getMe', 'GET', '/me', { token: null });
    await call('getMe', 'GET', '/me', { token: 'not-a-token' });
    await call('getTenant', 'GET', `/admin/tenants/${randomUUID()}`);
    await call('deleteMembership', 'DELETE', `${memberships}/${owner?.tenantMembershipId}`);
    await call('updateTenant', 'PATCH', tenant, { body: { name: 'Stale' }, headers: { 'if-match': '"1"' } });
    await call('createMembership', 'POST', memberships, {
      body: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    await call('createTenant', 'POST', '/admin/tenants', {
      body: { ...tenantBody, name: 'Another body, the same key' },
      headers: key,
    });
    const flooder = await createActor(h);
    await call('getMe', 'GET', '/me', { token: flooder.token, server: limited });
    await call('getMe', 'GET', '/me', { token: flooder.token, server: limited });
    await call('deleteTenant', 'DELETE', tenant, { headers: { 'if-match': '"2"' } });

    expect(calls.map(({ operationId, response }) => `${operationId} ${response.status}`)).toEqual([
      'createTenant 201',
      'createTenant 201',
      'listTenants 200',
      'getTenant 200',
      'updateTenant 200',
      'createMembership 201',
      'listMemberships 200',
      'getMembership 200',
      'updateMembership 200',
      'deleteMembership 204',
      'getMe 200',
      'getLiveness 200',
      'getReadiness 200',
      'getHealth 200',
      'listMemberships 400',
      'getMe 401',
      'getMe 401',
      'getTenant 404',
      'deleteMembership 409',
      'updateTenant 412',
      'createMembership 415',
      'createTenant 422',
      'getMe 200',
      'getMe 429',
      'deleteTenant 204',
    ]);
    for (const made of calls) expectDeclared(made);
  });
});
