import { z } from 'zod';
import { TimestampSchema, UuidSchema } from '../common/ids.js';
import { pageQuery } from '../common/pagination.js';
import { JoinCodeRoleSchema } from '../joining/join-codes.schemas.js';

/**
 * What a verified domain does for a person who signs in with a verified address at it: `join`
 * makes them a member at once, `request` opens a join request an ADMIN decides.
 */
export const DOMAIN_MODES = ['join', 'request'] as const;
export type DomainMode = (typeof DOMAIN_MODES)[number];
export const DomainModeSchema = z
  .enum(DOMAIN_MODES)
  .describe('join: an ACTIVE membership at once; request: a join request that an ADMIN approves or refuses');

/** A domain gives what a code gives at most (TEACHER), and only an OWNER sets TEACHER. */
const DomainRoleSchema = JoinCodeRoleSchema.describe(
  'The role a person gets by the domain: STUDENT (default) or TEACHER (set by an OWNER only)',
);

export const DomainSchema = z.object({
  domainId: UuidSchema,
  tenantId: UuidSchema,
  domain: z.string().describe('The domain, canonical: lower case, IDNA A-labels (`xn--…`), no trailing dot'),
  mode: DomainModeSchema,
  role: DomainRoleSchema,
  includeSubdomains: z.boolean().describe('true: addresses at any subdomain match too (`a.school.edu`)'),
  verifiedAt: TimestampSchema.nullable().describe(
    'When it was verified: only a verified domain acts; null until a super administrator verifies it',
  ),
  createdAt: TimestampSchema,
});
export type Domain = z.infer<typeof DomainSchema>;

export const CreateDomainBodySchema = z
  .object({
    domain: z
      .string()
      .min(1)
      .max(253)
      .describe(
        "The school's own mail domain, e.g. `school.edu`: not a consumer or disposable mail domain, a public suffix or an IP address",
      ),
    mode: DomainModeSchema,
    role: DomainRoleSchema.default('STUDENT'),
    includeSubdomains: z.boolean().default(false),
  })
  .strict();
export type CreateDomainBody = z.input<typeof CreateDomainBodySchema>;

export const UpdateDomainBodySchema = z
  .object({ mode: DomainModeSchema.optional(), role: DomainRoleSchema.optional() })
  .strict()
  .refine((body) => body.mode !== undefined || body.role !== undefined, {
    message: 'give mode, role or both',
  });
export type UpdateDomainBody = z.infer<typeof UpdateDomainBodySchema>;

export const TenantDomainParams = z.object({
  tenantId: UuidSchema.describe("The tenant's `tenantId`"),
  domainId: UuidSchema.describe("The domain's `domainId`; one of another tenant is not found here"),
});

export const DomainIdParams = z.object({ domainId: UuidSchema.describe("The domain's `domainId`") });

export const ListDomainsQuerySchema = z.object({ ...pageQuery });
export type ListDomainsQuery = z.infer<typeof ListDomainsQuerySchema>;
