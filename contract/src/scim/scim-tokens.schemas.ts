import { z } from 'zod';
import { TimestampSchema, UuidSchema } from '../common/ids.js';
import { text } from '../common/text.js';

export const ScimTokenSchema = z.object({
  scimTokenId: UuidSchema,
  description: z.string().nullable(),
  createdAt: TimestampSchema,
  expiresAt: TimestampSchema.nullable().describe('null: until revoked'),
  lastUsedAt: TimestampSchema.nullable().describe('The last SCIM request made with it (to the minute)'),
});
export type ScimToken = z.infer<typeof ScimTokenSchema>;

export const NewScimTokenSchema = ScimTokenSchema.extend({
  token: z.string().describe('The bearer token for the directory: shown this once, only its hash is kept'),
  baseUrl: z.string().describe("The tenant's SCIM base URL, as the directory's tenant URL setting wants it"),
});
export type NewScimToken = z.infer<typeof NewScimTokenSchema>;

export const CreateScimTokenBodySchema = z
  .object({
    description: text().trim().min(1).max(200).optional().describe('Which directory uses it, for you'),
    expiresAt: z
      .string()
      .datetime({ offset: true })
      .refine((value) => Date.parse(value) > Date.now(), 'must be in the future')
      .optional()
      .describe('When it stops working; none: until revoked'),
  })
  .strict()
  .optional();
export type CreateScimTokenBody = z.infer<typeof CreateScimTokenBodySchema>;

export const ScimTokenIdParams = z.object({
  tenantId: UuidSchema.describe("The tenant's `tenantId` (a UUID)"),
  scimTokenId: UuidSchema.describe("The token's `scimTokenId`; one of another tenant is not found here"),
});
