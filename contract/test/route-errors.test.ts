import { type AppRoute, type AppRouter, type ClientInferResponses, isAppRoute } from '@ts-rest/core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { contract } from '../src/contract.js';
import { type ErrorEnvelope, ErrorEnvelopeSchema } from '../src/envelope.js';
import { HTTP_STATUS, type ResponseCode } from '../src/response-codes.js';
import { type ErrorCodeOf, errorCodesOf, type RouterErrorCodes } from '../src/route-errors.js';

const routes = (router: AppRouter): AppRoute[] =>
  Object.values(router).flatMap((entry) => (isAppRoute(entry) ? [entry] : routes(entry)));

/** The list, checked by the compiler to hold every member of the union U and nothing else. */
const exactly =
  <U extends ResponseCode>() =>
  <const L extends readonly U[]>(list: L & ([U] extends [L[number]] ? unknown : { missing: U })) =>
    [...list].sort();

describe('the error responses of each route', () => {
  it('are exactly the statuses its codes map to, each answering the error envelope', () => {
    for (const route of routes(contract)) {
      const responses = route.responses as Record<number, unknown>;
      const errorStatuses = Object.keys(responses)
        .map(Number)
        .filter((status) => responses[status] === ErrorEnvelopeSchema);
      const expected = [...new Set(errorCodesOf(route).map((code) => HTTP_STATUS[code]))];
      expect(errorStatuses.sort(), `${route.method} ${route.path}`).toEqual(expected.sort());
    }
  });

  it('keep what a route declares for itself: the probes answer 503 with their own body', () => {
    expect(contract.health.ready.responses[503]).not.toBe(ErrorEnvelopeSchema);
    expect(Object.keys(contract.health.live.responses)).toEqual(['200']);
  });

  it('are what the typed client sees', () => {
    type Update = ClientInferResponses<typeof contract.memberships.update>;
    expectTypeOf<Extract<Update, { status: 409 }>['body']>().toEqualTypeOf<ErrorEnvelope>();
    expectTypeOf<Extract<Update, { status: 412 }>['body']>().toEqualTypeOf<ErrorEnvelope>();
    expectTypeOf<keyof typeof contract.tenants.list.responses>().toEqualTypeOf<
      200 | 400 | 401 | 403 | 429 | 500 | 503
    >();
  });
});

describe('ErrorCodeOf, the compile-time errorCodesOf', () => {
  // One route per branch of errorCodesOf: access rule, a body, a :tenantId, declared codes.
  const cases: [AppRoute, ResponseCode[]][] = [
    [
      contract.tenants.list,
      exactly<ErrorCodeOf<typeof contract.tenants.list>>()([
        'UNAUTHENTICATED',
        'VALIDATION_FAILED',
        'RATE_LIMITED',
        'INTERNAL_ERROR',
        'SERVICE_UNAVAILABLE',
        'TENANT_BUSY',
        'SERVICE_OVERLOADED',
        'SUPER_ADMIN_REQUIRED',
      ]),
    ],
    [
      contract.tenants.update,
      exactly<ErrorCodeOf<typeof contract.tenants.update>>()([
        'UNAUTHENTICATED',
        'VALIDATION_FAILED',
        'RATE_LIMITED',
        'INTERNAL_ERROR',
        'SERVICE_UNAVAILABLE',
        'TENANT_BUSY',
        'SERVICE_OVERLOADED',
        'SUPER_ADMIN_REQUIRED',
        'TENANT_SLUG_TAKEN',
        'PRECONDITION_FAILED',
        'INVALID_JSON',
        'PAYLOAD_TOO_LARGE',
        'UNSUPPORTED_MEDIA_TYPE',
        'TENANT_ID_MISMATCH',
        'TENANT_NOT_FOUND',
      ]),
    ],
    [
      contract.memberships.remove,
      exactly<ErrorCodeOf<typeof contract.memberships.remove>>()([
        'UNAUTHENTICATED',
        'VALIDATION_FAILED',
        'RATE_LIMITED',
        'INTERNAL_ERROR',
        'SERVICE_UNAVAILABLE',
        'TENANT_BUSY',
        'SERVICE_OVERLOADED',
        'TENANT_ACCESS_DENIED',
        'INSUFFICIENT_ROLE',
        'TENANT_NOT_FOUND',
        'MEMBERSHIP_NOT_FOUND',
        'ROLE_HIERARCHY_VIOLATION',
        'LAST_OWNER',
        'MEMBERSHIP_MANAGED_BY_DIRECTORY',
        'PRECONDITION_FAILED',
        'TENANT_ID_MISMATCH',
      ]),
    ],
    [
      contract.memberships.create,
      exactly<RouterErrorCodes<typeof contract>['memberships']['create']>()([
        'UNAUTHENTICATED',
        'VALIDATION_FAILED',
        'RATE_LIMITED',
        'INTERNAL_ERROR',
        'SERVICE_UNAVAILABLE',
        'TENANT_BUSY',
        'SERVICE_OVERLOADED',
        'TENANT_ACCESS_DENIED',
        'INSUFFICIENT_ROLE',
        'TENANT_NOT_FOUND',
        'USER_NOT_FOUND',
        'MEMBERSHIP_ALREADY_EXISTS',
        'ROLE_HIERARCHY_VIOLATION',
        'INVALID_JSON',
        'PAYLOAD_TOO_LARGE',
        'UNSUPPORTED_MEDIA_TYPE',
        'IDEMPOTENCY_KEY_IN_FLIGHT',
        'IDEMPOTENCY_KEY_REUSED',
        'TENANT_ID_MISMATCH',
      ]),
    ],
    [
      contract.me.get,
      exactly<ErrorCodeOf<typeof contract.me.get>>()([
        'UNAUTHENTICATED',
        'VALIDATION_FAILED',
        'RATE_LIMITED',
        'INTERNAL_ERROR',
        'SERVICE_UNAVAILABLE',
        'TENANT_BUSY',
        'SERVICE_OVERLOADED',
      ]),
    ],
  ];

  it.each(cases.map(([route, codes]) => [`${route.method} ${route.path}`, route, codes] as const))(
    'says what errorCodesOf says for %s',
    (_name, route, codes) => {
      expect([...errorCodesOf(route)].sort()).toEqual(codes);
    },
  );

  it('gives the public routes no code', () => {
    expectTypeOf<ErrorCodeOf<typeof contract.health.ready>>().toEqualTypeOf<never>();
    expect(errorCodesOf(contract.health.ready)).toEqual([]);
  });
});
