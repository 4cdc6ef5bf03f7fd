import { z } from 'zod';

export const UuidSchema = z.string().uuid();
export const TimestampSchema = z.string().datetime().describe('ISO-8601, UTC');

export const TenantIdParams = z.object({
  tenantId: UuidSchema.describe(
    "The tenant's `tenantId` (a UUID), as `POST /admin/tenants` or `GET /me` gave it",
  ),
});
