import { z } from 'zod';

export const UuidSchema = z.string().uuid();
export const TimestampSchema = z.string().datetime().describe('ISO-8601, UTC');

export const TenantIdParams = z.object({ tenantId: UuidSchema });
