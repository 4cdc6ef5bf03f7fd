import { z } from 'zod';
import { EmptyBodySchema } from '../common/empty-body.js';
import { TimestampSchema, UuidSchema } from '../common/ids.js';
import { pageQuery, searchQuery } from '../common/pagination.js';
import { text } from '../common/text.js';
import { TENANT_STATUSES } from '../lifecycle.js';

export const TenantSlugSchema = z
  .string()
  .min(3)
  .max(63)
  .regex(
    /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/,
    'lowercase letters, digits and "-", starting and ending with a letter or digit',
  );
export const TenantNameSchema = text().trim().min(1).max(200);

export const TenantSchema = z.object({
  tenantId: UuidSchema,
  slug: z.string(),
  name: z.string(),
  version: z.number().int().min(1).describe('Increases on every change; sent as the ETag'),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
  deletedAt: TimestampSchema.nullable().describe('When the tenant was deleted; null while it is active'),
  purgeAfter: TimestampSchema.nullable().describe(
    'A deleted tenant can be restored until then, and is purged for good after it; null while it is active',
  ),
});
export type Tenant = z.infer<typeof TenantSchema>;

export const TenantStatusSchema = z.enum(TENANT_STATUSES);

/**
 * An address as its owner writes it, international ones included (`jörg@müller.de`). Only its
 * shape is checked here; the server reads it by RFC 5321/5322/6531 and refuses what is not valid.
 */
export const EmailSchema = text()
  .trim()
  .max(254)
  .regex(/^[^@\s]+@[^@\s]+$/, 'must be an email address')
  .describe(
    'Compared by its canonical form: the domain through IDNA, the local part lower-cased in ASCII only',
  );
export const DisplayNameSchema = text().trim().min(1).max(200);

/** A user named by id, or by email (an unknown email creates an invited user). */
export const UserReferenceSchema = z.union([
  z.object({ userId: UuidSchema }).strict(),
  z.object({ email: EmailSchema, displayName: DisplayNameSchema.optional() }).strict(),
]);
export type UserReference = z.infer<typeof UserReferenceSchema>;

export const CreateTenantBodySchema = z
  .object({ name: TenantNameSchema, slug: TenantSlugSchema, owner: UserReferenceSchema })
  .strict();
export type CreateTenantBody = z.infer<typeof CreateTenantBodySchema>;

export const UpdateTenantBodySchema = z
  .object({ name: TenantNameSchema.optional(), slug: TenantSlugSchema.optional() })
  .strict()
  .refine((body) => body.name !== undefined || body.slug !== undefined, {
    message: 'give at least one of name, slug',
  });
export type UpdateTenantBody = z.infer<typeof UpdateTenantBodySchema>;

/** A restore takes no fields: the body may be left out, or be `{}`; anything in it is refused. */
export const RestoreTenantBodySchema = EmptyBodySchema;

export const ListTenantsQuerySchema = z.object({
  ...pageQuery,
  q: searchQuery.optional().describe('Case-insensitive substring of the name or the slug'),
  status: TenantStatusSchema.default('ACTIVE').describe(
    'ACTIVE (the default) or DELETED: deleted tenants, restorable until their `purgeAfter`',
  ),
});
export type ListTenantsQuery = z.infer<typeof ListTenantsQuerySchema>;
