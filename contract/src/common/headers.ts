import { z } from 'zod';

/**
 * Kept for compatibility only: the tenant always comes from the URL. A value that differs from the
 * URL's tenant is refused (TENANT_ID_MISMATCH) rather than silently ignored.
 */
export const TenantHeaders = z.object({
  'x-tenant-id': z.string().optional().describe('Optional; must equal the :tenantId of the URL when sent'),
});
