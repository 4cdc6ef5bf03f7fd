import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createSuperAdmin, createTenantFixture } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';

const APP = 'https://app.school.example';

let h: TestServer;
let withCors: TestServer;
const logLines: string[] = [];
beforeAll(async () => {
  h = await startTestServer();
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  withCors = await startTestServer({
    database: h.database,
    corsOrigins: [APP],
    logger: createLogger('info', sink),
  });
});
afterAll(async () => {
  await withCors?.close();
  await h?.close();
});

describe('CORS', () => {
  it('answers the preflight of a configured origin, with the headers a browser app needs', async () => {
    const res = await fetch(`${withCors.baseUrl}/tenants/x/memberships/y`, {
      method: 'OPTIONS',
      headers: {
        origin: APP,
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'authorization,if-match,content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
    expect(res.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('if-match');
  });

  it('lets a browser app send an Idempotency-Key and read whether its POST was replayed', async () => {
    const res = await fetch(`${withCors.baseUrl}/tenants/x/memberships`, {
      method: 'OPTIONS',
      headers: {
        origin: APP,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,idempotency-key',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('idempotency-key');
    const answer = await fetch(`${withCors.baseUrl}/health/live`, { headers: { origin: APP } });
    expect(answer.headers.get('access-control-expose-headers')).toContain('Idempotent-Replayed');
  });

  it('exposes ETag and x-request-id to the configured origin', async () => {
    const res = await fetch(`${withCors.baseUrl}/health/live`, { headers: { origin: APP } });
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
    expect(res.headers.get('access-control-expose-headers')).toMatch(/ETag.*x-request-id/);
  });

  it('gives no CORS grant to another origin, nor to any origin by default', async () => {
    const stranger = await fetch(`${withCors.baseUrl}/health/live`, {
      headers: { origin: 'https://evil.example' },
    });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    const byDefault = await fetch(`${h.baseUrl}/health/live`, { headers: { origin: APP } });
    expect(byDefault.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('security headers', () => {
  it('on API answers, errors included: nothing may frame, sniff, render or cache them', async () => {
    for (const path of ['/health/live', '/me', '/no/such/route']) {
      const res = await fetch(`${h.baseUrl}${path}`);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('cross-origin-resource-policy')).toBe('same-origin');
      // Plain HTTP: RFC 6797 forbids HSTS here; frame-ancestors stands for X-Frame-Options.
      expect(res.headers.get('strict-transport-security')).toBeNull();
      expect(res.headers.get('x-powered-by')).toBeNull();
    }
  });

  it("on the documentation: helmet's full set, with a policy that lets Swagger UI run", async () => {
    for (const path of ['/docs/', '/openapi.json']) {
      const res = await fetch(`${h.baseUrl}${path}`);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(res.headers.get('content-security-policy')).toContain("img-src 'self' data:");
      expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-powered-by')).toBeNull();
    }
  });
});

describe('request logs', () => {
  it('write one JSON line per request with its id, route, status and duration, and never the token', async () => {
    const admin = await createSuperAdmin(withCors);
    const tenant = await createTenantFixture(withCors);
    await fetch(`${withCors.baseUrl}/admin/tenants/${tenant.tenantId}`, {
      headers: { authorization: `Bearer ${admin.token}`, 'x-request-id': 'log-check-1' },
    });
    await fetch(`${withCors.baseUrl}/me?token=${admin.token}`, {
      headers: { authorization: 'Bearer forged.token.value' },
    });
    const entries = logLines.map((line) => JSON.parse(line));
    expect(entries.find((e) => e.requestId === 'log-check-1')).toMatchObject({
      msg: 'request',
      method: 'GET',
      route: '/admin/tenants/:tenantId',
      status: 200,
      durationMs: expect.any(Number),
      userId: admin.userId,
    });
    expect(entries.find((e) => e.status === 401)).toMatchObject({ route: '/me', path: '/me' });
    const everything = logLines.join('\n');
    expect(everything).not.toContain(admin.token);
    expect(everything).not.toContain(admin.token.split('.')[2]);
    expect(everything).not.toContain('forged.token.value');
  });
});
