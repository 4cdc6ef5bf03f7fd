import { contract, errorCodesOf, HTTP_STATUS, type ResponseCode } from '@tms/contract';
import { type AppRoute, type AppRouter, isAppRoute } from '@ts-rest/core';
import { headersOf, type Response } from './response-headers.js';

const errorRef = { $ref: '#/components/schemas/ErrorEnvelope' };

/** Every route of a router, with its path in the contract (`memberships.update`). */
const routeEntries = (router: AppRouter, prefix = ''): [string, AppRoute][] =>
  Object.entries(router).flatMap(([key, entry]): [string, AppRoute][] =>
    isAppRoute(entry) ? [[`${prefix}${key}`, entry]] : routeEntries(entry, `${prefix}${key}.`),
  );

/** The codes some route answers (ROUTE_NOT_FOUND and METHOD_NOT_ALLOWED answer no route of the document). */
export const answeredCodes = () => [
  ...new Set(routeEntries(contract).flatMap(([, route]) => errorCodesOf(route))),
];

/** The route's error codes, by HTTP status. */
function errorStatuses(route: AppRoute): Map<number, ResponseCode[]> {
  const byStatus = new Map<number, ResponseCode[]>();
  for (const code of errorCodesOf(route))
    byStatus.set(HTTP_STATUS[code], [...(byStatus.get(HTTP_STATUS[code]) ?? []), code]);
  return new Map([...byStatus.entries()].sort(([a], [b]) => a - b));
}

/** An error response; it depends on its codes only (their status sets its headers). */
function errorResponse(routeKey: string, route: AppRoute, status: number, codes: ResponseCode[]): Response {
  return {
    description: `Error envelope; \`error.code\` is one of: ${codes.join(', ')}`,
    headers: headersOf(routeKey, route, status),
    content: {
      'application/json': {
        schema: errorRef,
        examples: Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}` }])),
      },
    },
  };
}

const pascal = (code: string) =>
  code.toLowerCase().replace(/(^|_)([a-z])/g, (_match, _sep, letter: string) => letter.toUpperCase());

/**
 * Error responses with a single code that several routes answer alike (401, 429, 500, 503...):
 * declared once under components.responses, by the code's name, and referenced.
 */
function sharedErrorResponses(): Map<ResponseCode, { name: string; response: Response }> {
  const uses = new Map<ResponseCode, { count: number; response: Response }>();
  for (const [routeKey, route] of routeEntries(contract)) {
    for (const [status, codes] of errorStatuses(route)) {
      const [code] = codes;
      if (codes.length !== 1 || !code) continue;
      const seen = uses.get(code);
      uses.set(code, {
        count: (seen?.count ?? 0) + 1,
        response: errorResponse(routeKey, route, status, codes),
      });
    }
  }
  return new Map(
    [...uses.entries()]
      .filter(([, { count }]) => count > 1)
      .map(([code, { response }]) => [code, { name: pascal(code), response }]),
  );
}
export const SHARED_ERRORS = sharedErrorResponses();

/** One response per error status, listing the codes the route can answer with that status. */
export function errorResponses(
  routeKey: string,
  route: AppRoute,
): Record<string, Response | { $ref: string }> {
  return Object.fromEntries(
    [...errorStatuses(route)].map(([status, codes]) => {
      const shared = codes.length === 1 && codes[0] ? SHARED_ERRORS.get(codes[0]) : undefined;
      return [
        String(status),
        shared
          ? { $ref: `#/components/responses/${shared.name}` }
          : errorResponse(routeKey, route, status, codes),
      ];
    }),
  );
}
