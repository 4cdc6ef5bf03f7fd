import type { Request } from 'express';

/**
 * A tenant's SCIM base URL as its caller reaches this service (behind a proxy that express trusts,
 * as that proxy names it): what a directory's "tenant URL" setting takes, and the base of
 * `meta.location`.
 */
export const scimBaseUrlOf = (req: Request, tenantId: string): string =>
  `${req.protocol}://${req.get('host') ?? 'localhost'}/tenants/${tenantId}/scim/v2`;
