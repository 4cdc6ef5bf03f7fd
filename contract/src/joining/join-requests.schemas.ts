import { z } from 'zod';
import { TimestampSchema, UuidSchema } from '../common/ids.js';
import { pageQuery } from '../common/pagination.js';
import { JOIN_REQUEST_STATUSES } from '../lifecycle.js';
import { JoinCodeRoleSchema } from './join-codes.schemas.js';

export const JOIN_REQUEST_DAYS = 30;

export const JoinRequestStatusSchema = z.enum(JOIN_REQUEST_STATUSES);

export const JoinRequestSchema = z.object({
  joinRequestId: UuidSchema,
  tenantId: UuidSchema,
  userId: UuidSchema.describe('Who asks to join'),
  email: z.string().nullable().describe("The person's verified email, as their identity provider gave it"),
  displayName: z.string().nullable(),
  joinCodeId: UuidSchema.nullable().describe(
    'The code it was made with; null when made by a domain, or once that code is gone',
  ),
  domainId: UuidSchema.nullable().describe(
    'The verified domain (mode `request`) that made it at sign-in; null when made with a code, or once that domain is gone',
  ),
  role: JoinCodeRoleSchema.describe('The most an approval may give: the role of the code or the domain'),
  status: JoinRequestStatusSchema,
  expiresAt: TimestampSchema.describe(`${JOIN_REQUEST_DAYS} days after it was made`),
  decidedBy: UuidSchema.nullable().describe('Who approved, rejected or blocked it'),
  decidedAt: TimestampSchema.nullable(),
  createdAt: TimestampSchema,
});
export type JoinRequest = z.infer<typeof JoinRequestSchema>;

/** A join request as the person who made it sees it: which tenant, by name. */
export const MyJoinRequestSchema = JoinRequestSchema.extend({
  tenantSlug: z.string(),
  tenantName: z.string(),
});
export type MyJoinRequest = z.infer<typeof MyJoinRequestSchema>;

export const JoinRequestIdParams = z.object({
  tenantId: UuidSchema.describe("The tenant's `tenantId`"),
  joinRequestId: UuidSchema.describe(
    "The request's `joinRequestId`; one of another tenant is not found here",
  ),
});

export const MyJoinRequestIdParams = z.object({
  joinRequestId: UuidSchema.describe("The request's `joinRequestId`; anyone else's is not found"),
});

export const JoinBlockParams = z.object({
  tenantId: UuidSchema.describe("The tenant's `tenantId`"),
  userId: UuidSchema.describe('The blocked person'),
});

export const ListJoinRequestsQuerySchema = z.object({
  ...pageQuery,
  status: JoinRequestStatusSchema.optional().describe('Only the requests in this status (EXPIRED as shown)'),
});
export type ListJoinRequestsQuery = z.infer<typeof ListJoinRequestsQuerySchema>;

export const ApproveJoinRequestBodySchema = z
  .object({
    role: JoinCodeRoleSchema.optional().describe(
      "The role to give: at most the request's (default: the request's)",
    ),
  })
  .strict();
export type ApproveJoinRequestBody = z.infer<typeof ApproveJoinRequestBodySchema>;
