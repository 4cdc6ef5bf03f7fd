import { type AppRoute, type AppRouter, isAppRoute } from '@ts-rest/core';
import type { RouteAccess, RouteMetadata } from './common/metadata.js';
import { ErrorEnvelopeSchema } from './envelope.js';
import { HTTP_STATUS, type ResponseCode } from './response-codes.js';

/*
 * A route declares the codes its own work can answer (`metadata.errors`); the codes of its access
 * rule and of its shape are added here. Everything else is derived from this one list: the
 * route's error statuses (so the typed client sees them), the OpenAPI error lists, the client's
 * per-route code unions and the error table of docs/errors.md. The type-level twins below must
 * say what the runtime says: a contract test compares them route by route.
 */

const ANY_AUTHENTICATED = [
  'UNAUTHENTICATED',
  'VALIDATION_FAILED',
  'RATE_LIMITED',
  'TENANT_BUSY',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
  'SERVICE_OVERLOADED',
] as const satisfies readonly ResponseCode[];
const WITH_BODY = [
  'INVALID_JSON',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
] as const satisfies readonly ResponseCode[];
const BODY_METHODS = ['POST', 'PATCH', 'PUT'] as const;
/** Every POST takes an `Idempotency-Key` (common/headers.ts). */
const WITH_IDEMPOTENCY_KEY = [
  'IDEMPOTENCY_KEY_IN_FLIGHT',
  'IDEMPOTENCY_KEY_REUSED',
] as const satisfies readonly ResponseCode[];

const BY_ACCESS = {
  public: [],
  authenticated: [],
  superAdmin: ['SUPER_ADMIN_REQUIRED'],
  tenantAdmin: ['TENANT_ACCESS_DENIED', 'INSUFFICIENT_ROLE', 'TENANT_NOT_FOUND'],
  tenantTeacher: ['TENANT_ACCESS_DENIED', 'INSUFFICIENT_ROLE', 'TENANT_NOT_FOUND'],
  tenantCaller: ['TENANT_ACCESS_DENIED', 'INSUFFICIENT_ROLE', 'TENANT_NOT_FOUND'],
  // SCIM routes answer SCIM errors (scim/scim.contract.ts), none of the API's codes.
  scimToken: [],
} as const satisfies Record<RouteAccess, readonly ResponseCode[]>;

export const routeMetadata = (route: AppRoute): RouteMetadata =>
  (route.metadata as RouteMetadata | undefined) ?? { access: 'authenticated' };

/** Every code a route can answer: from its access rule, its shape, and what it declares. */
export function errorCodesOf(route: AppRoute): ResponseCode[] {
  const { access, errors = [] } = routeMetadata(route);
  if (access === 'public' || access === 'scimToken') return [...errors];
  const codes = new Set<ResponseCode>([...ANY_AUTHENTICATED, ...BY_ACCESS[access], ...errors]);
  if ((BODY_METHODS as readonly string[]).includes(route.method)) {
    for (const code of WITH_BODY) codes.add(code);
  }
  if (route.method === 'POST') for (const code of WITH_IDEMPOTENCY_KEY) codes.add(code);
  if (route.path.includes(':tenantId')) codes.add('TENANT_ID_MISMATCH');
  if (access === 'superAdmin' && route.path.includes(':tenantId')) codes.add('TENANT_NOT_FOUND');
  return [...codes];
}

type MetadataOf<R extends AppRoute> = R['metadata'] extends { access: RouteAccess }
  ? R['metadata']
  : { access: 'authenticated' };
type DeclaredOf<M> = M extends { errors?: infer E } ? (E extends readonly (infer C)[] ? C : never) : never;

/** errorCodesOf, for the compiler: the union of the codes a route can answer. */
export type ErrorCodeOf<R extends AppRoute> = ErrorCodesFor<
  MetadataOf<R>['access'],
  R['method'],
  R['path'],
  DeclaredOf<MetadataOf<R>> & ResponseCode
>;
type ErrorCodesFor<
  Access extends RouteAccess,
  Method extends string,
  Path extends string,
  Declared extends ResponseCode,
> = Access extends 'public' | 'scimToken'
  ? Declared
  :
      | Declared
      | (typeof ANY_AUTHENTICATED)[number]
      | (typeof BY_ACCESS)[Access][number]
      | (Method extends (typeof BODY_METHODS)[number] ? (typeof WITH_BODY)[number] : never)
      | (Method extends 'POST' ? (typeof WITH_IDEMPOTENCY_KEY)[number] : never)
      | (Path extends `${string}:tenantId${string}`
          ? 'TENANT_ID_MISMATCH' | (Access extends 'superAdmin' ? 'TENANT_NOT_FOUND' : never)
          : never);

/** The codes of every route of a router, by the router's own keys: `RouterErrorCodes<Contract>['memberships']['update']`. */
export type RouterErrorCodes<T extends AppRouter> = {
  [K in keyof T]: T[K] extends AppRoute
    ? ErrorCodeOf<T[K]>
    : T[K] extends AppRouter
      ? RouterErrorCodes<T[K]>
      : never;
};

type ErrorResponses<C extends ResponseCode> = { [S in (typeof HTTP_STATUS)[C]]: typeof ErrorEnvelopeSchema };
type Flat<T> = { [K in keyof T]: T[K] } & {};
/** The route's own responses win: a public probe may answer 503 with its own body. */
type WithRouteErrors<R extends AppRoute> = Flat<
  Omit<R, 'responses'> & {
    responses: Flat<Omit<ErrorResponses<ErrorCodeOf<R>>, keyof R['responses']> & R['responses']>;
  }
>;
export type WithErrorResponses<T extends AppRouter> = {
  [K in keyof T]: T[K] extends AppRoute
    ? WithRouteErrors<T[K]>
    : T[K] extends AppRouter
      ? WithErrorResponses<T[K]>
      : T[K];
};

/**
 * Adds `{ [status]: ErrorEnvelopeSchema }` to every route, for each status its codes map to. Apply
 * it to the result of `c.router(..., { metadata: { access } })`, once the access rule is merged in.
 */
export function withErrorResponses<T extends AppRouter>(router: T): WithErrorResponses<T> {
  return Object.fromEntries(
    Object.entries(router).map(([key, entry]) => {
      if (!isAppRoute(entry)) return [key, withErrorResponses(entry)];
      const errors = Object.fromEntries(
        errorCodesOf(entry).map((code) => [HTTP_STATUS[code], ErrorEnvelopeSchema]),
      );
      return [key, { ...entry, responses: { ...errors, ...entry.responses } }];
    }),
  ) as WithErrorResponses<T>;
}
