import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/openapi/document.js';

// The document describes the contract and is committed next to it, with the contract's version.
const contractFile = (name: string) => new URL(`../../../contract/${name}`, import.meta.url);

describe('the committed OpenAPI document', () => {
  it('is what the contract generates (run `npm run openapi` after changing the contract)', () => {
    const { version } = JSON.parse(readFileSync(contractFile('package.json'), 'utf8'));
    const committed = JSON.parse(readFileSync(contractFile('openapi.json'), 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(version))));
  });

  it('secures every route but the health routes with bearer auth', () => {
    const doc = buildOpenApiDocument('test');
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const operation of Object.values(operations as Record<string, { security: unknown[] }>)) {
        expect(operation.security, path).toEqual(path.startsWith('/health') ? [] : [{ bearerAuth: [] }]);
      }
    }
  });
});

describe('the OpenAPI document as a third party reads it', () => {
  const doc = buildOpenApiDocument('test');
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods as Record<string, Record<string, unknown>>).map(([method, op]) => ({
      path,
      method,
      op,
    })),
  );

  it('gives every operation a unique camelCase operationId, a summary and a tag', () => {
    const ids = operations.map(({ op }) => op.operationId as string);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, op } of operations) {
      expect(op.operationId, path).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.summary, path).toBeTruthy();
      expect(op.tags, path).toHaveLength(1);
    }
  });

  it('names the resources as components', () => {
    expect(Object.keys(doc.components?.schemas ?? {})).toEqual(
      expect.arrayContaining(['Tenant', 'Membership', 'User', 'ErrorEnvelope', 'ResponseCode', 'Role']),
    );
  });

  it('lists, for each error status of each route, the codes it can answer', () => {
    const patch = doc.paths['/tenants/{tenantId}/memberships/{tenantMembershipId}']?.patch;
    expect(patch.responses['409'].description).toContain('LAST_OWNER');
    expect(patch.responses['412'].description).toContain('PRECONDITION_FAILED');
    expect(patch.responses['403'].description).toContain('ROLE_HIERARCHY_VIOLATION');
    for (const { path, op } of operations) {
      for (const [status, response] of Object.entries(
        op.responses as Record<string, { description: string }>,
      )) {
        if (Number(status) >= 400 && !path.startsWith('/health'))
          expect(response.description, `${path} ${status}`).toMatch(/one of: [A-Z_]+/);
      }
    }
  });

  it('gives request examples for the routes that take a body', () => {
    for (const { path, method, op } of operations) {
      if (method !== 'post' && method !== 'patch') continue;
      const json = (op.requestBody as { content: Record<string, { examples?: object }> }).content[
        'application/json'
      ];
      expect(Object.keys(json?.examples ?? {}).length, `${method} ${path}`).toBeGreaterThan(0);
    }
  });
});
