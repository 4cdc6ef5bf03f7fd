import type { AppRoute } from '@ts-rest/core';
import type { RouteMetadata } from './common/metadata.js';
import type { ResponseCode } from './response-codes.js';

const ANY_AUTHENTICATED: ResponseCode[] = [
  'UNAUTHENTICATED',
  'VALIDATION_FAILED',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
];
const WITH_BODY: ResponseCode[] = ['INVALID_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];

const BY_ACCESS: Record<RouteMetadata['access'], ResponseCode[]> = {
  public: [],
  authenticated: [],
  superAdmin: ['SUPER_ADMIN_REQUIRED'],
  tenantAdmin: ['TENANT_ACCESS_DENIED', 'INSUFFICIENT_ROLE', 'TENANT_NOT_FOUND'],
};

export const routeMetadata = (route: AppRoute): RouteMetadata =>
  (route.metadata as RouteMetadata | undefined) ?? { access: 'authenticated' };

/** Every code a route can answer: from its access rule, its shape, and what it declares. */
export function errorCodesOf(route: AppRoute): ResponseCode[] {
  const { access, errors = [] } = routeMetadata(route);
  if (access === 'public') return [...errors];
  const codes = new Set<ResponseCode>([...ANY_AUTHENTICATED, ...BY_ACCESS[access], ...errors]);
  if (route.method === 'POST' || route.method === 'PATCH' || route.method === 'PUT') {
    for (const code of WITH_BODY) codes.add(code);
  }
  if (route.path.includes(':tenantId')) codes.add('TENANT_ID_MISMATCH');
  if (access === 'superAdmin' && route.path.includes(':tenantId')) codes.add('TENANT_NOT_FOUND');
  return [...codes];
}
