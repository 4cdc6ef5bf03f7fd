import { z } from 'zod';
import { EmptyBodySchema } from '../common/empty-body.js';
import { TimestampSchema, UuidSchema } from '../common/ids.js';
import { pageQuery, queryBoolean, searchQuery } from '../common/pagination.js';
import { text } from '../common/text.js';
import { MEMBERSHIP_STATUSES } from '../lifecycle.js';
import { ROLE_LEVEL, ROLES } from '../roles.js';
import { DisplayNameSchema, EmailSchema } from '../tenants/tenants.schemas.js';

export const RoleSchema = z.enum(ROLES);
const roleLevels = Object.values(ROLE_LEVEL) as [number, ...number[]];
export const RoleLevelSchema = z
  .number()
  .int()
  .refine((n) => roleLevels.includes(n))
  .describe('OWNER 40, ADMIN 30, TEACHER 20, STUDENT 10');

export const UserSummarySchema = z.object({
  userId: UuidSchema,
  email: z.string().nullable(),
  displayName: z.string().nullable(),
});
export type UserSummary = z.infer<typeof UserSummarySchema>;

export const MembershipStatusSchema = z
  .enum(MEMBERSHIP_STATUSES)
  .describe(
    'ACTIVE grants access; SUSPENDED (by hand), SCHEDULED (startsAt in the future) and ENDED (endsAt passed) do not',
  );

export const MembershipSchema = z.object({
  tenantMembershipId: UuidSchema,
  tenantId: UuidSchema,
  userId: UuidSchema,
  role: RoleSchema,
  roleLevel: RoleLevelSchema,
  status: MembershipStatusSchema,
  startsAt: TimestampSchema.nullable().describe('When the term begins; null: since the membership was made'),
  endsAt: TimestampSchema.nullable().describe('When the term ends; null: open-ended'),
  suspendedAt: TimestampSchema.nullable().describe('When it was suspended; null unless SUSPENDED'),
  suspensionReason: z.string().nullable().describe('What the admin who suspended it wrote, if anything'),
  version: z.number().int().min(1).describe('Increases on every change; sent as the ETag'),
  managedBy: z
    .enum(['scim'])
    .nullable()
    .describe(
      "scim: the tenant's directory manages it (role, status, removal change there only); null: by hand",
    ),
  user: UserSummarySchema,
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
});
export type Membership = z.infer<typeof MembershipSchema>;

export const MembershipIdParams = z.object({
  tenantId: UuidSchema.describe(
    "The tenant's `tenantId` (a UUID), as `POST /admin/tenants` or `GET /me` gave it",
  ),
  tenantMembershipId: UuidSchema.describe(
    "The membership's `tenantMembershipId` (a UUID); one of another tenant is not found here",
  ),
});

export const CreateMembershipBodySchema = z.union([
  z.object({ role: RoleSchema, userId: UuidSchema }).strict(),
  z.object({ role: RoleSchema, email: EmailSchema, displayName: DisplayNameSchema.optional() }).strict(),
]);
export type CreateMembershipBody = z.infer<typeof CreateMembershipBodySchema>;

/** The dates a term can take: an instant with its offset, within what every database stores alike. */
const TERM_FROM = Date.parse('1970-01-01T00:00:00Z');
const TERM_UNTIL = Date.parse('9999-12-31T23:59:59.999Z');
export const TermDateSchema = z
  .string()
  .datetime({ offset: true })
  .refine((value) => {
    const time = Date.parse(value);
    return time >= TERM_FROM && time <= TERM_UNTIL;
  }, 'must be between 1970-01-01 and 9999-12-31')
  .describe('ISO-8601 with a time and an offset (e.g. `2025-09-01T00:00:00Z`); null clears it');

const TERM_KEYS = ['role', 'startsAt', 'endsAt'] as const;

export const UpdateMembershipBodySchema = z
  .object({
    role: RoleSchema.optional(),
    startsAt: TermDateSchema.nullable().optional(),
    endsAt: TermDateSchema.nullable().optional(),
  })
  .strict()
  .refine((body) => TERM_KEYS.some((key) => body[key] !== undefined), {
    message: 'send at least one of role, startsAt, endsAt',
  })
  .refine(({ startsAt, endsAt }) => !startsAt || !endsAt || Date.parse(startsAt) < Date.parse(endsAt), {
    message: 'must be after startsAt',
    path: ['endsAt'],
  })
  .describe(
    'At least one key. A date left out keeps its value; `startsAt < endsAt` must hold after the change. ' +
      'An OWNER membership has no term dates.',
  );
export type UpdateMembershipBody = z.infer<typeof UpdateMembershipBodySchema>;

/** An empty body, or none at all: a request without a body is the same as `{}`. */
export const SuspendMembershipBodySchema = z
  .object({
    reason: text()
      .trim()
      .min(1)
      .max(500)
      .optional()
      .describe("Why, for the tenant's admins (never shown to the member)"),
  })
  .strict()
  .optional();
export type SuspendMembershipBody = z.infer<typeof SuspendMembershipBodySchema>;

export const ReactivateMembershipBodySchema = EmptyBodySchema;

/** The orders a member table offers; each keeps its cursor exact across pages and ties. */
export const MEMBERSHIP_SORTS = ['createdAt', '-createdAt', 'email', 'displayName'] as const;
export type MembershipSort = (typeof MEMBERSHIP_SORTS)[number];

/** One status, or several as the key repeated (`?status=ACTIVE&status=SUSPENDED`): any of them. */
const statusQuery = z
  .union([MembershipStatusSchema, z.array(MembershipStatusSchema).min(1)])
  .transform((value) => [...new Set(Array.isArray(value) ? value : [value])]);

export const ListMembershipsQuerySchema = z.object({
  ...pageQuery,
  role: RoleSchema.optional().describe('Only the memberships with this role'),
  status: statusQuery
    .optional()
    .describe(
      'Only the memberships in these statuses: repeat the key for several (`status=ACTIVE&status=SUSPENDED`)',
    ),
  q: searchQuery.optional().describe('Case-insensitive substring of the email or the display name'),
  sort: z
    .enum(MEMBERSHIP_SORTS)
    .default('createdAt')
    .describe(
      'createdAt (oldest first, the default), -createdAt (newest first), email or displayName ' +
        '(A to Z, case-insensitive, members without one last); ties in creation order',
    ),
  includeTotal: queryBoolean
    .optional()
    .describe('true: `meta.total` says how many memberships match the filters (one more query)'),
});
export type ListMembershipsQuery = z.infer<typeof ListMembershipsQuerySchema>;

export const ExportMembershipsQuerySchema = z.object({
  format: z
    .enum(['csv', 'ndjson'])
    .default('csv')
    .describe(
      'csv: the columns an import reads (formula-looking cells neutralised); ndjson: one JSON object per line',
    ),
  role: RoleSchema.optional().describe('Only the memberships with this role'),
  status: statusQuery
    .optional()
    .describe('Only the memberships in these statuses: repeat the key for several'),
});
export type ExportMembershipsQuery = z.infer<typeof ExportMembershipsQuerySchema>;
