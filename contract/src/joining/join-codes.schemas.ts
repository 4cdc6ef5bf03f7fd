import { z } from 'zod';
import { TimestampSchema, UuidSchema } from '../common/ids.js';
import { pageQuery } from '../common/pagination.js';
import { JOIN_CODE_STATUSES } from '../lifecycle.js';

export const JOIN_CODE_DAYS_DEFAULT = 14;
export const JOIN_CODE_DAYS_MAX = 90;
export const JOIN_CODE_USES_MAX = 10_000;

/**
 * The roles a code may give: never ADMIN or OWNER. A code is a shared secret written on a board;
 * whoever reads it over a shoulder gets what it gives, so it gives at most what a teacher is.
 */
export const JOIN_CODE_ROLES = ['TEACHER', 'STUDENT'] as const;
export const JoinCodeRoleSchema = z
  .enum(JOIN_CODE_ROLES)
  .describe('The role the code gives: STUDENT (a TEACHER or above makes it) or TEACHER (an ADMIN or above)');

export const JoinCodeSchema = z.object({
  joinCodeId: UuidSchema,
  tenantId: UuidSchema,
  code: z
    .string()
    .nullable()
    .describe(
      'The code as shown (`ABCD-EFGH`), typed in any case, with or without the dash; null once revoked',
    ),
  role: JoinCodeRoleSchema,
  expiresAt: TimestampSchema,
  maxUses: z.number().int().nullable().describe('How many people may join with it; null: no limit'),
  uses: z.number().int().describe('How many people joined, or asked to, with it'),
  requiresApproval: z
    .boolean()
    .describe('true: redeeming it opens a join request that an ADMIN (or a TEACHER, for STUDENT) approves'),
  status: z.enum(JOIN_CODE_STATUSES),
  createdAt: TimestampSchema,
  createdBy: UuidSchema.nullable().describe('Who made it; null once that user is gone'),
});
export type JoinCode = z.infer<typeof JoinCodeSchema>;

export const CreateJoinCodeBodySchema = z
  .object({
    role: JoinCodeRoleSchema.default('STUDENT'),
    expiresAt: TimestampSchema.optional().describe(
      `When it stops working: in the future, at most ${JOIN_CODE_DAYS_MAX} days away (default ${JOIN_CODE_DAYS_DEFAULT} days from now)`,
    ),
    maxUses: z
      .number()
      .int()
      .min(1)
      .max(JOIN_CODE_USES_MAX)
      .optional()
      .describe(`How many people may join with it, 1 to ${JOIN_CODE_USES_MAX} (default: no limit)`),
    requiresApproval: z.boolean().default(false),
  })
  .strict();
export type CreateJoinCodeBody = z.input<typeof CreateJoinCodeBodySchema>;

export const JoinCodeIdParams = z.object({
  tenantId: UuidSchema.describe("The tenant's `tenantId`"),
  joinCodeId: UuidSchema.describe("The code's `joinCodeId`; one of another tenant is not found here"),
});

export const ListJoinCodesQuerySchema = z.object({ ...pageQuery });
export type ListJoinCodesQuery = z.infer<typeof ListJoinCodesQuerySchema>;

/** What a person typed: checked by the server (a wrong one is the same 404 as an unknown one). */
const TypedCodeSchema = z.string().min(1).max(32).describe('The code, in any case, with or without its dash');

export const JoinBodySchema = z.object({ code: TypedCodeSchema }).strict();
export type JoinBody = z.infer<typeof JoinBodySchema>;

export const JoinCodeParams = z.object({ code: TypedCodeSchema });

export const JOIN_PREVIEW_OUTCOMES = ['joinable', 'already_member', 'requires_approval', 'blocked'] as const;

/** What redeeming a code would do for the caller, without doing it. */
export const JoinPreviewSchema = z.object({
  tenantName: z.string(),
  tenantSlug: z.string(),
  role: JoinCodeRoleSchema,
  outcome: z
    .enum(JOIN_PREVIEW_OUTCOMES)
    .describe(
      'joinable: POST /join makes an ACTIVE membership; already_member: the caller has one (in any status); ' +
        'requires_approval: POST /join opens a join request (or one is pending); blocked: the tenant blocked the caller',
    ),
});
export type JoinPreview = z.infer<typeof JoinPreviewSchema>;
