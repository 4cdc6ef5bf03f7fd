import { type AppRoute, type AppRouter, isAppRoute } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import { contract } from '../src/contract.js';
import { HTTP_STATUS, RESPONSE_CODE_MEANING, RESPONSE_CODES, ResponseCode } from '../src/response-codes.js';

const routes = (router: AppRouter): AppRoute[] =>
  Object.values(router).flatMap((entry) => (isAppRoute(entry) ? [entry] : routes(entry)));

describe('response codes', () => {
  it('gives every code exactly one HTTP status in the error range', () => {
    expect(Object.keys(HTTP_STATUS).sort()).toEqual([...RESPONSE_CODES].sort());
    for (const code of RESPONSE_CODES) {
      expect(ResponseCode[code]).toBe(code);
      expect(HTTP_STATUS[code]).toBeGreaterThanOrEqual(400);
      expect(HTTP_STATUS[code]).toBeLessThan(600);
    }
  });

  it('gives every code a one-line meaning (docs/errors.md is generated from it)', () => {
    expect(Object.keys(RESPONSE_CODE_MEANING).sort()).toEqual([...RESPONSE_CODES].sort());
    for (const code of RESPONSE_CODES) expect(RESPONSE_CODE_MEANING[code], code).toMatch(/^[^\n|]{10,200}$/);
  });
});

describe('the contract', () => {
  it('declares who may call every route', () => {
    for (const route of routes(contract)) {
      expect(
        (route.metadata as { access?: string } | undefined)?.access,
        `${route.method} ${route.path}`,
      ).toMatch(/^(public|authenticated|superAdmin|tenantAdmin|tenantTeacher|tenantCaller)$/);
    }
  });

  it('refuses unknown body fields on every route that takes a body', () => {
    for (const route of routes(contract)) {
      if (route.method === 'GET' || route.method === 'DELETE' || !('body' in route)) continue;
      const parsed = (route.body as { safeParse(v: unknown): { success: boolean } }).safeParse({
        unexpected: true,
      });
      expect(parsed.success, `${route.method} ${route.path}`).toBe(false);
    }
  });
});
