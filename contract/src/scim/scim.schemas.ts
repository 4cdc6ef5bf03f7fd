import { z } from 'zod';
import { UuidSchema } from '../common/ids.js';

/*
 * SCIM 2.0's own shapes (RFC 7643, RFC 7644): what a directory sends and reads. Answers are
 * described exactly; bodies are taken loosely here and read by the server, which accepts the
 * variants real directories send (docs/scim.md) and answers a SCIM error for the rest.
 */

export const SCIM_MEDIA_TYPE = 'application/scim+json';
export const SCIM_SCHEMA = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  listResponse: 'urn:ietf:params:scim:api:messages:2.0:ListResponse',
  patchOp: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  error: 'urn:ietf:params:scim:api:messages:2.0:Error',
  serviceProviderConfig: 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig',
  resourceType: 'urn:ietf:params:scim:schemas:core:2.0:ResourceType',
  schema: 'urn:ietf:params:scim:schemas:core:2.0:Schema',
} as const;

/** RFC 7644 §3.12: the scimType values this service answers. */
export const SCIM_ERROR_TYPES = [
  'invalidFilter',
  'tooMany',
  'uniqueness',
  'mutability',
  'invalidSyntax',
  'invalidPath',
  'noTarget',
  'invalidValue',
  'invalidVers',
] as const;
export type ScimErrorType = (typeof SCIM_ERROR_TYPES)[number];

export const ScimErrorSchema = z.object({
  schemas: z.array(z.literal(SCIM_SCHEMA.error)),
  status: z.string().describe('The HTTP status, as a string (RFC 7644 §3.12)'),
  scimType: z.enum(SCIM_ERROR_TYPES).optional(),
  detail: z.string().optional(),
});
export type ScimError = z.infer<typeof ScimErrorSchema>;

const MetaSchema = z.object({
  resourceType: z.enum(['User', 'Group']),
  created: z.string(),
  lastModified: z.string(),
  location: z.string(),
  version: z.string().describe('The ETag of this version'),
});

export const ScimUserSchema = z.object({
  schemas: z.array(z.string()),
  id: UuidSchema.describe("The membership's id (`tenantMembershipId`)"),
  externalId: z.string().optional(),
  userName: z.string().describe('The email address, as the directory sent it'),
  name: z.object({
    formatted: z.string().optional(),
    givenName: z.string().optional(),
    familyName: z.string().optional(),
  }),
  displayName: z.string().optional(),
  emails: z.array(z.object({ value: z.string(), type: z.string().optional(), primary: z.boolean() })),
  active: z.boolean().describe('false: the membership is suspended (or not in its term)'),
  groups: z.array(z.object({ value: UuidSchema, display: z.string() })),
  meta: MetaSchema,
});
export type ScimUser = z.infer<typeof ScimUserSchema>;

export const ScimGroupSchema = z.object({
  schemas: z.array(z.string()),
  id: UuidSchema,
  externalId: z.string().optional(),
  displayName: z.string(),
  members: z.array(
    z.object({ value: UuidSchema, display: z.string().optional(), $ref: z.string().optional() }),
  ),
  meta: MetaSchema,
});
export type ScimGroup = z.infer<typeof ScimGroupSchema>;

export const scimListResponse = <T extends z.ZodTypeAny>(resource: T) =>
  z.object({
    schemas: z.array(z.literal(SCIM_SCHEMA.listResponse)),
    totalResults: z.number().int(),
    startIndex: z.number().int(),
    itemsPerPage: z.number().int(),
    Resources: z.array(resource),
  });

/** A body as a directory sends it: read by the server, which knows the variants (docs/scim.md). */
export const ScimResourceBodySchema = z
  .record(z.unknown())
  .describe('A SCIM User or Group (RFC 7643 §4), as Entra ID, Okta and others send it');
export const ScimPatchBodySchema = z
  .record(z.unknown())
  .describe('A PatchOp (RFC 7644 §3.5.2): `Operations` of add, replace, remove, any case');

export const ScimListQuerySchema = z.object({
  filter: z.string().optional().describe('RFC 7644 §3.4.2.2, e.g. `userName eq "ada@example.org"`'),
  startIndex: z.string().optional().describe('1-based; default 1'),
  count: z.string().optional().describe('At most 200; default 100'),
  attributes: z
    .string()
    .optional()
    .describe('Accepted; every attribute is answered all the same (docs/scim.md, differences)'),
  excludedAttributes: z.string().optional().describe("`members` leaves a group's members out"),
});

export const ScimIdParams = z.object({
  tenantId: UuidSchema.describe("The tenant's `tenantId` (a UUID)"),
  id: z.string().describe('The resource id; an unknown one, or one that is no UUID, is a 404'),
});

export const ScimIfMatchHeaders = z.object({
  'if-match': z.string().optional().describe('The `ETag` (meta.version) you read; 412 when it moved on'),
});

/** The discovery documents (RFC 7644 §4): fixed, described by the RFC. */
export const ScimDocumentSchema = z.record(z.unknown());
