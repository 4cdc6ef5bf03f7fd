import { SCIM_SCHEMA } from '@tms/contract';

/*
 * The discovery documents of RFC 7644 §4: what this service supports, its resource types and the
 * schemas as it serves them. Fixed, but for the base URL in each `meta.location`.
 */

export const MAX_RESULTS = 200;

const listOf = (resources: object[]) => ({
  schemas: [SCIM_SCHEMA.listResponse],
  totalResults: resources.length,
  startIndex: 1,
  itemsPerPage: resources.length,
  Resources: resources,
});

export const serviceProviderConfig = (baseUrl: string) => ({
  schemas: [SCIM_SCHEMA.serviceProviderConfig],
  documentationUri: 'https://github.com/tenant-membership-service/docs/scim.md',
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: MAX_RESULTS },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: true },
  authenticationSchemes: [
    {
      type: 'oauthbearertoken',
      name: 'SCIM token',
      description: 'A token made with POST /tenants/:tenantId/scim-tokens, sent as `Authorization: Bearer`',
      primary: true,
    },
  ],
  meta: { resourceType: 'ServiceProviderConfig', location: `${baseUrl}/ServiceProviderConfig` },
});

export const resourceTypes = (baseUrl: string) =>
  listOf([
    {
      schemas: [SCIM_SCHEMA.resourceType],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: "A person's membership in the tenant",
      schema: SCIM_SCHEMA.user,
      meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/User` },
    },
    {
      schemas: [SCIM_SCHEMA.resourceType],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description: "A directory group; the tenant's admins map it to a role",
      schema: SCIM_SCHEMA.group,
      meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/Group` },
    },
  ]);

type Attribute = {
  name: string;
  type: 'string' | 'boolean' | 'complex' | 'reference' | 'dateTime';
  multiValued?: boolean;
  required?: boolean;
  caseExact?: boolean;
  mutability?: 'readOnly' | 'readWrite' | 'immutable';
  uniqueness?: 'none' | 'server';
  subAttributes?: Attribute[];
  description: string;
};

const attribute = ({
  multiValued = false,
  required = false,
  caseExact = false,
  ...rest
}: Attribute): object => ({
  multiValued,
  required,
  caseExact,
  mutability: rest.mutability ?? 'readWrite',
  returned: 'default',
  uniqueness: rest.uniqueness ?? 'none',
  ...rest,
  ...(rest.subAttributes && { subAttributes: rest.subAttributes.map(attribute) }),
});

const USER_ATTRIBUTES: Attribute[] = [
  {
    name: 'userName',
    type: 'string',
    required: true,
    uniqueness: 'server',
    mutability: 'immutable',
    description: "The person's email address: compared in its canonical form, kept as sent",
  },
  {
    name: 'name',
    type: 'complex',
    description: "The person's name, as the directory sends it",
    subAttributes: [
      { name: 'formatted', type: 'string', description: 'The full name' },
      { name: 'givenName', type: 'string', description: 'The given name' },
      { name: 'familyName', type: 'string', description: 'The family name' },
    ],
  },
  { name: 'displayName', type: 'string', description: 'The name shown in this tenant' },
  {
    name: 'emails',
    type: 'complex',
    multiValued: true,
    description: 'The address of userName, as the one primary email',
    subAttributes: [
      { name: 'value', type: 'string', description: 'The address' },
      { name: 'type', type: 'string', description: 'work' },
      { name: 'primary', type: 'boolean', description: 'true' },
    ],
  },
  { name: 'active', type: 'boolean', description: 'false: the membership is suspended' },
  {
    name: 'groups',
    type: 'complex',
    multiValued: true,
    mutability: 'readOnly',
    description: "The tenant's directory groups the person is in",
    subAttributes: [
      { name: 'value', type: 'string', mutability: 'readOnly', description: "The group's id" },
      { name: 'display', type: 'string', mutability: 'readOnly', description: "The group's displayName" },
    ],
  },
];

const GROUP_ATTRIBUTES: Attribute[] = [
  {
    name: 'displayName',
    type: 'string',
    required: true,
    uniqueness: 'server',
    description: 'Unique in the tenant',
  },
  {
    name: 'members',
    type: 'complex',
    multiValued: true,
    description: 'The Users in the group',
    subAttributes: [
      { name: 'value', type: 'string', mutability: 'immutable', description: "The User's id" },
      { name: 'display', type: 'string', mutability: 'readOnly', description: "The User's name" },
      { name: '$ref', type: 'reference', mutability: 'immutable', description: "The User's URI" },
    ],
  },
];

export const schemas = (baseUrl: string) =>
  listOf([
    {
      schemas: [SCIM_SCHEMA.schema],
      id: SCIM_SCHEMA.user,
      name: 'User',
      description: "A person's membership in the tenant",
      attributes: USER_ATTRIBUTES.map(attribute),
      meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${SCIM_SCHEMA.user}` },
    },
    {
      schemas: [SCIM_SCHEMA.schema],
      id: SCIM_SCHEMA.group,
      name: 'Group',
      description: 'A directory group',
      attributes: GROUP_ATTRIBUTES.map(attribute),
      meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${SCIM_SCHEMA.group}` },
    },
  ]);
