import type {
  CreateScimTokenBody,
  NewScimToken,
  ScimGroupSummary,
  ScimToken,
  SetScimGroupRoleBody,
} from '@tms/contract';
import { type Examples, GREEN_VALLEY, ok } from './examples.js';

/*
 * The examples of the admin routes of a tenant's directory (issue 27), in the story of
 * examples.ts: Ada Head connects Green Valley's Entra ID, and its "Teachers" group makes teachers.
 */

// UUIDv7s whose timestamps match the createdAt next to them.
const ENTRA_TOKEN = '0195e1c4-7a10-7c2e-9b1f-3d5a8e6c4f21';
const OKTA_TOKEN = '0195f0a2-1b3c-7d4e-8f5a-6b7c8d9e0f12';
const TEACHERS = '0195e1d0-4c2a-7f31-a8b9-2e4d6f8a0c13';
const YEAR_7 = '0195e1d0-4c2b-7a02-b1c3-5d7e9f1a3b24';

const entra: ScimToken = {
  scimTokenId: ENTRA_TOKEN,
  description: 'Entra ID provisioning',
  createdAt: '2025-04-02T09:15:00.000Z',
  expiresAt: '2030-04-02T00:00:00.000Z',
  lastUsedAt: '2025-04-02T09:40:00.000Z',
};
const okta: ScimToken = {
  scimTokenId: OKTA_TOKEN,
  description: 'Okta (the sixth form)',
  createdAt: '2025-04-06T13:20:00.000Z',
  expiresAt: null,
  lastUsedAt: null,
};
const entraNew: NewScimToken = {
  ...entra,
  lastUsedAt: null,
  token: 'scim_Jq3vX8nB2mK7pL0rT5wY9cF4hD6gS1aZ8eU3iO7kM2n',
  baseUrl: `https://members.example/tenants/${GREEN_VALLEY}/scim/v2`,
};

const teachers: ScimGroupSummary = {
  groupId: TEACHERS,
  displayName: 'Teachers',
  externalId: 'a4f7c2e1-8b3d-4e6f-9a0c-1d2e3f4a5b6c',
  memberCount: 48,
  role: 'TEACHER',
};
const year7: ScimGroupSummary = {
  groupId: YEAR_7,
  displayName: 'Year 7',
  externalId: 'b5e8d3f2-9c4e-4f70-8b1d-2e3f4a5b6c7d',
  memberCount: 212,
  role: null,
};

const createBodies: Examples<CreateScimTokenBody> = {
  described: {
    summary: 'For Entra ID, until April 2030',
    value: { description: 'Entra ID provisioning', expiresAt: '2030-04-02T00:00:00Z' },
  },
  bare: { summary: 'No options: send no body, or `{}` (until revoked)', value: {} },
};
const roleBodies: Examples<SetScimGroupRoleBody> = {
  teachers: { summary: "The group's members become TEACHERs", value: { role: 'TEACHER' } },
};

export const SCIM_REQUEST_EXAMPLES = {
  createScimToken: createBodies,
  setScimGroupRole: roleBodies,
};

export const SCIM_RESPONSE_EXAMPLES = {
  createScimToken: {
    201: {
      one: {
        summary: 'Made: give the token and the base URL to the directory; the token is not shown again',
        value: ok(entraNew),
      },
    },
  },
  listScimTokens: {
    200: { live: { summary: "The tenant's live tokens (two during a rotation)", value: ok([entra, okta]) } },
  },
  listScimGroups: {
    200: {
      groups: {
        summary: "The directory's groups: one gives TEACHER, the other nothing yet",
        value: ok([teachers, year7]),
      },
    },
  },
  setScimGroupRole: { 200: { mapped: { summary: 'Mapped', value: ok(teachers) } } },
  unmapScimGroupRole: { 200: { unmapped: { summary: 'Unmapped', value: ok({ ...teachers, role: null }) } } },
};
