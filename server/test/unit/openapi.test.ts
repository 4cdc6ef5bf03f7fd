import { readFileSync } from 'node:fs';
import { contract, ErrorEnvelopeSchema, SCIM_MEDIA_TYPE, scimContract } from '@tms/contract';
import { type AppRoute, type AppRouter, isAppRoute } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import type { ZodTypeAny } from 'zod';
import {
  buildOpenApiDocument,
  OPERATION_IDS,
  REQUEST_EXAMPLES_BY_OPERATION,
  RESPONSE_EXAMPLES_BY_OPERATION,
} from '../../src/openapi/document.js';
import { RESPONSE_EXAMPLES } from '../../src/openapi/examples.js';

// The document describes the contract and is committed next to it, with the contract's version.
const contractFile = (name: string) => new URL(`../../../contract/${name}`, import.meta.url);
/** The tenant's directory's routes (SCIM 2.0): their own media type, credential and errors. */
const isScim = (path: string) => path.includes('/scim/v2');

describe('the committed OpenAPI document', () => {
  it('is what the contract generates (run `npm run openapi` after changing the contract)', () => {
    const { version } = JSON.parse(readFileSync(contractFile('package.json'), 'utf8'));
    const committed = JSON.parse(readFileSync(contractFile('openapi.json'), 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(version))));
  });

  it("secures every route but the health routes with bearer auth, and the directory's with a SCIM token", () => {
    const doc = buildOpenApiDocument('test');
    const securityOf = (path: string) =>
      path.startsWith('/health') ? [] : [isScim(path) ? { scimToken: [] } : { bearerAuth: [] }];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const operation of Object.values(operations as Record<string, { security: unknown[] }>)) {
        expect(operation.security, path).toEqual(securityOf(path));
      }
    }
  });

  it("answers the directory's routes in SCIM's media type, without the envelope", () => {
    const doc = buildOpenApiDocument('test') as { paths: Record<string, Record<string, Operation>> };
    const scim = Object.entries(doc.paths).filter(([path]) => isScim(path));
    expect(scim.length).toBeGreaterThan(5);
    for (const [path, methods] of scim) {
      for (const op of Object.values(methods)) {
        for (const response of Object.values(op.responses) as Response[]) {
          if (response.content) expect(Object.keys(response.content), path).toEqual([SCIM_MEDIA_TYPE]);
        }
        if (op.requestBody) expect(Object.keys(op.requestBody.content), path).toEqual([SCIM_MEDIA_TYPE]);
      }
    }
  });
});

type Json = Record<string, unknown>;
type MediaType = { schema?: Json; examples?: Record<string, { value?: unknown; $ref?: string }> };
type Response = { description: string; headers?: Record<string, Json>; content?: Record<string, MediaType> };
type Parameter = { name: string; in: string; description?: string; schema?: Json };
type Operation = {
  operationId: string;
  summary?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, Response | { $ref: string }>;
};

const doc = JSON.parse(JSON.stringify(buildOpenApiDocument('test'))) as {
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
};

/** Follows a local `$ref` (`#/components/...`), as a reader of the document does. */
function deref<T>(value: T | { $ref: string }): T {
  if (!value || typeof value !== 'object' || !('$ref' in value)) return value as T;
  const target = value.$ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, key) => (node as Json | undefined)?.[key], doc);
  if (target === undefined) throw new Error(`unresolved ${value.$ref}`);
  return deref(target as T | { $ref: string });
}

const routeEntries = (router: AppRouter, prefix = ''): [string, AppRoute][] =>
  Object.entries(router).flatMap(([key, entry]): [string, AppRoute][] =>
    isAppRoute(entry) ? [[`${prefix}${key}`, entry]] : routeEntries(entry, `${prefix}${key}.`),
  );
const routeByOperationId = new Map(
  [...routeEntries(contract), ...routeEntries(scimContract)].map(([key, route]) => [
    OPERATION_IDS[key] ?? key,
    { key, route },
  ]),
);

/** Every operation, the directory's (SCIM) included: what a third party reads of each. */
const everyOperation = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, op]) => {
    const found = routeByOperationId.get(op.operationId);
    if (!found) throw new Error(`no contract route for ${op.operationId}`);
    const responses = Object.fromEntries(
      Object.entries(op.responses).map(([status, response]) => [status, deref<Response>(response)]),
    );
    return { path, method, op, responses, ...found };
  }),
);
/** The API's own operations: the envelope, its error codes, its headers and examples (SCIM has its own). */
const operations = everyOperation.filter(({ path }) => !isScim(path));
const isHealth = (path: string) => path.startsWith('/health');

describe('the OpenAPI document as a third party reads it', () => {
  it('gives every operation a unique camelCase operationId, a summary and a tag', () => {
    const ids = everyOperation.map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, op } of everyOperation) {
      expect(op.operationId, path).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.summary, path).toBeTruthy();
      expect(op.tags, path).toHaveLength(1);
    }
  });

  it('names the resources as components', () => {
    expect(Object.keys(doc.components.schemas ?? {})).toEqual(
      expect.arrayContaining(['Tenant', 'Membership', 'User', 'ErrorEnvelope', 'ResponseCode', 'Role']),
    );
  });

  it('resolves every $ref', () => {
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) expect(() => deref(JSON.parse(`{${ref}}`)), ref).not.toThrow();
  });

  it('lists, for each error status of each route, the codes it can answer', () => {
    const patch = operations.find((o) => o.op.operationId === 'updateMembership')?.responses ?? {};
    expect(patch['409']?.description).toContain('LAST_OWNER');
    expect(patch['412']?.description).toContain('PRECONDITION_FAILED');
    expect(patch['403']?.description).toContain('ROLE_HIERARCHY_VIOLATION');
    for (const { path, responses } of operations) {
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) >= 400 && !isHealth(path))
          expect(response.description, `${path} ${status}`).toMatch(/one of: [A-Z_]+/);
      }
    }
  });

  it('describes every parameter: path, query and header', () => {
    const parameters = everyOperation.flatMap(({ method, path, op }) =>
      (op.parameters ?? []).map((parameter) => ({ where: `${method} ${path} ${parameter.name}`, parameter })),
    );
    expect(parameters.length).toBeGreaterThan(20);
    for (const { where, parameter } of parameters) expect(parameter.description?.trim(), where).toBeTruthy();
  });
});

describe('the response headers the document declares', () => {
  const headersOf = (response: Response) => Object.keys(response.headers ?? {}).map((h) => h.toLowerCase());
  const all = operations.flatMap(({ path, method, op, key, route, responses }) =>
    Object.entries(responses).map(([status, response]) => ({
      where: `${method} ${path} ${status}`,
      status: Number(status),
      headers: headersOf(response),
      path,
      method,
      op,
      key,
      route,
    })),
  );

  it('declares each header once, under components.headers, with a description', () => {
    const headers = Object.values(doc.components.headers ?? {}) as { description?: string }[];
    expect(headers.length).toBeGreaterThanOrEqual(8);
    for (const header of headers) expect(header.description).toBeTruthy();
    for (const { where, path, method, op } of operations.map((o) => ({ ...o, where: o.path }))) {
      for (const response of Object.values(op.responses)) {
        for (const header of Object.values(deref<Response>(response).headers ?? {}))
          expect(header, `${method} ${path} ${where}`).toHaveProperty('$ref');
      }
    }
  });

  it('x-request-id on every answer, errors and health probes included', () => {
    for (const { where, headers } of all) expect(headers, where).toContain('x-request-id');
  });

  it('RateLimit-* on every answer of every route that needs a token, and only there', () => {
    for (const { where, headers, path } of all) {
      for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) {
        if (isHealth(path)) expect(headers, where).not.toContain(name);
        else expect(headers, where).toContain(name);
      }
    }
    const limit = doc.components.headers?.RateLimitLimit as { description: string };
    expect(limit.description).toMatch(/only when the server runs with a rate limiter/i);
  });

  it('ETag on the success answers that carry a tenant or a membership, and only there', () => {
    const withEtag = all
      .filter(({ headers }) => headers.includes('etag'))
      .map(({ op, status }) => op.operationId + status);
    expect(withEtag.sort()).toEqual(
      [
        'acceptInvitation201',
        'approveJoinRequest201',
        'createMembership201',
        'createTenant201',
        'getMembership200',
        'getTenant200',
        'reactivateMembership200',
        'restoreTenant200',
        'suspendMembership200',
        'updateMembership200',
        'updateTenant200',
      ].sort(),
    );
  });

  it('Retry-After on 429 and on the error envelope 503; WWW-Authenticate on 401; Idempotent-Replayed on a POST success', () => {
    for (const { where, status, headers, path, method } of all) {
      const retry = status === 429 || (status === 503 && !isHealth(path));
      expect(headers.includes('retry-after'), where).toBe(retry);
      expect(headers.includes('www-authenticate'), where).toBe(status === 401);
      const replayable = status < 300 && method === 'post' && !isHealth(path);
      expect(headers.includes('idempotent-replayed'), where).toBe(replayable);
    }
  });
});

describe('the examples of the OpenAPI document', () => {
  const schemaFor = (route: AppRoute, status: number) =>
    (route.responses as Record<number, ZodTypeAny>)[status] ?? undefined;
  const examplesOf = (media: MediaType | undefined) =>
    Object.entries(media?.examples ?? {}).map(([name, example]) => ({
      name,
      value: deref<{ value?: unknown }>(example).value,
    }));

  it('gives every request body examples that parse with the route body schema of the contract', () => {
    const withBody = operations.filter(({ op }) => op.requestBody);
    expect(withBody.map(({ op }) => op.operationId).sort()).toEqual(
      [
        'acceptGuardianInvitation',
        'acceptInvitation',
        'acceptOwnershipTransfer',
        'approveJoinRequest',
        'blockJoinRequest',
        'cancelMyJoinRequest',
        'cancelOwnershipTransfer',
        'createInvitation',
        'createDomain',
        'createGuardianInvitation',
        'createJoinCode',
        'createMembership',
        'createOwnershipTransfer',
        'createPairingCode',
        'createPlatformWebhook',
        'createRosterImport',
        'createScimToken',
        'createTenant',
        'createWebhook',
        'declineGuardianInvitation',
        'declineInvitation',
        'declineOwnershipTransfer',
        'joinWithCode',
        'reactivateMembership',
        'redeemPairingCode',
        'rejectJoinRequest',
        'resendInvitation',
        'restoreTenant',
        'retryPlatformWebhookDelivery',
        'retryWebhookDelivery',
        'revokeGuardianInvitation',
        'revokeInvitation',
        'rotateJoinCode',
        'rotatePlatformWebhookSecret',
        'rotateWebhookSecret',
        'setScimGroupRole',
        'suspendMembership',
        'updateDomain',
        'updateMembership',
        'updatePlatformWebhook',
        'updateTenant',
        'updateWebhook',
        'verifyDomain',
      ].sort(),
    );
    for (const { op, route } of withBody) {
      const examples = examplesOf(op.requestBody?.content['application/json']);
      expect(examples.length, op.operationId).toBeGreaterThan(0);
      for (const { name, value } of examples) {
        const parsed = (route as { body: ZodTypeAny }).body.safeParse(value);
        expect(parsed.error?.issues, `${op.operationId} request ${name}`).toBeUndefined();
      }
    }
  });

  it("gives every response with a body examples that parse with the contract's schema for it", () => {
    let checked = 0;
    for (const { path, op, route, responses } of operations) {
      for (const [status, response] of Object.entries(responses)) {
        const media = response.content?.['application/json'];
        if (!media) continue;
        const schema = schemaFor(route, Number(status));
        expect(schema, `${op.operationId} ${status}`).toBeDefined();
        const examples = examplesOf(media);
        expect(examples.length, `${op.operationId} ${status}: no example`).toBeGreaterThan(0);
        for (const { name, value } of examples) {
          const parsed = schema?.safeParse(value);
          expect(parsed?.error?.issues, `${op.operationId} ${status} ${name}`).toBeUndefined();
          if (Number(status) >= 400 && !isHealth(path))
            expect(ErrorEnvelopeSchema.parse(value).error.code, `${op.operationId} ${status}`).toBe(name);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('shows realistic values: role levels, UUIDv7 ids, a cursor and a total', () => {
    const membership = RESPONSE_EXAMPLES.getMembership[200].admin.value.data;
    expect(membership).toMatchObject({ role: 'ADMIN', roleLevel: 30 });
    expect(membership.tenantMembershipId).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(RESPONSE_EXAMPLES.listMemberships[200].withTotal.value.meta).toEqual({
      nextCursor: expect.stringMatching(/^[A-Za-z0-9_-]+$/),
      total: 27,
    });
  });

  it('has no example for an operation or status the document does not have', () => {
    const ids = new Set(everyOperation.map(({ op }) => op.operationId));
    const requests = Object.keys(REQUEST_EXAMPLES_BY_OPERATION);
    for (const id of [...requests, ...Object.keys(RESPONSE_EXAMPLES_BY_OPERATION)])
      expect(ids.has(id), id).toBe(true);
    for (const [id, byStatus] of Object.entries(RESPONSE_EXAMPLES_BY_OPERATION)) {
      const responses = operations.find(({ op }) => op.operationId === id)?.responses ?? {};
      for (const status of Object.keys(byStatus))
        expect(responses[status]?.content, `${id} ${status}`).toBeDefined();
    }
  });
});
