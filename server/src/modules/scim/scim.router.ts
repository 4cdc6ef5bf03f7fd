import { scimContract } from '@tms/contract';
import { scimErrorBodyOf } from '../../http/scim-error-body.js';
import type { ScimContext } from '../../pipeline/handlers.js';
import { routes, type ScimAnswer, scim } from '../../pipeline/handlers.js';
import { etagOf } from '../shared/if-match.js';
import { resourceTypes, schemas, serviceProviderConfig } from './scim-discovery.js';
import { toScimGroup } from './scim-group.dto.js';
import type { GroupRow } from './scim-groups.repository.js';
import {
  createScimGroup,
  getScimGroup,
  listScimGroupPage,
  membersOfScimGroup,
  patchScimGroup,
  removeScimGroup,
  replaceScimGroup,
} from './scim-groups.service.js';
import { listResponse } from './scim-list.js';
import { toScimUser } from './scim-user.dto.js';
import {
  createScimUser,
  getScimUser,
  groupsOfScimUser,
  listScimUserPage,
  patchScimUser,
  removeScimUser,
  replaceScimUser,
  type UserOutcome,
} from './scim-users.service.js';

/**
 * SCIM 2.0 for the tenant's directory (RFC 7644): reads run on the database, changes in the
 * transaction that locks the tenant (pipeline/directory-transaction.ts). Answers are SCIM's own
 * shapes, with the resource's version as its ETag.
 */

const withMembersOf = (excluded: string | undefined) =>
  !(excluded ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .includes('members');

async function userAnswer(
  context: ScimContext,
  outcome: UserOutcome,
  status: 200 | 201,
): Promise<ScimAnswer> {
  if ('refused' in outcome) return { status: 409, body: scimErrorBodyOf(outcome.refused) };
  const user = toScimUser(outcome.user, await groupsOfScimUser(context, outcome.user), context.baseUrl);
  return {
    status,
    body: user,
    headers: { ETag: etagOf(outcome.user.version), ...(status === 201 && { Location: user.meta.location }) },
  };
}

async function groupAnswer(
  context: ScimContext,
  row: GroupRow,
  status: 200 | 201,
  withMembers = true,
): Promise<ScimAnswer> {
  const group = toScimGroup(row, withMembers ? await membersOfScimGroup(context, row) : [], context.baseUrl);
  return {
    status,
    body: group,
    headers: { ETag: etagOf(row.version), ...(status === 201 && { Location: group.meta.location }) },
  };
}

export const scimRoutes = routes(scimContract.scim, {
  serviceProviderConfig: scim(async ({ baseUrl }) => ({ status: 200, body: serviceProviderConfig(baseUrl) })),
  resourceTypes: scim(async ({ baseUrl }) => ({ status: 200, body: resourceTypes(baseUrl) })),
  schemas: scim(async ({ baseUrl }) => ({ status: 200, body: schemas(baseUrl) })),

  listUsers: scim(async (context, { query }) => {
    const page = await listScimUserPage(context, query);
    const users = page.rows.map((row) =>
      toScimUser(
        row,
        page.groups.filter((group) => group.userId === row.userId),
        context.baseUrl,
      ),
    );
    return { status: 200, body: listResponse(users, page.total, page.startIndex) };
  }),
  createUser: scim(async (context, { body }) =>
    userAnswer(context, await createScimUser(context, body), 201),
  ),
  getUser: scim(async (context, { params }) =>
    userAnswer(context, { user: await getScimUser(context, params.id) }, 200),
  ),
  replaceUser: scim(async (context, { params, body, headers }) =>
    userAnswer(context, await replaceScimUser(context, params.id, body, headers['if-match']), 200),
  ),
  patchUser: scim(async (context, { params, body, headers }) =>
    userAnswer(context, await patchScimUser(context, params.id, body, headers['if-match']), 200),
  ),
  removeUser: scim(async (context, { params, headers }) => {
    const { refused } = await removeScimUser(context, params.id, headers['if-match']);
    return refused ? { status: 409, body: scimErrorBodyOf(refused) } : { status: 204 };
  }),

  listGroups: scim(async (context, { query }) => {
    const page = await listScimGroupPage(context, query, withMembersOf(query.excludedAttributes));
    const groups = page.rows.map((row) =>
      toScimGroup(
        row,
        page.members.filter((member) => member.groupId === row.id),
        context.baseUrl,
      ),
    );
    return { status: 200, body: listResponse(groups, page.total, page.startIndex) };
  }),
  createGroup: scim(async (context, { body }) =>
    groupAnswer(context, await createScimGroup(context, body), 201),
  ),
  getGroup: scim(async (context, { params, query }) =>
    groupAnswer(
      context,
      await getScimGroup(context, params.id),
      200,
      withMembersOf(query.excludedAttributes),
    ),
  ),
  replaceGroup: scim(async (context, { params, body, headers }) =>
    groupAnswer(context, await replaceScimGroup(context, params.id, body, headers['if-match']), 200),
  ),
  patchGroup: scim(async (context, { params, body, headers }) => {
    const group = await patchScimGroup(context, params.id, body, headers['if-match']);
    // No body: a group of thousands would be sent back whole for every change (RFC 7644 §3.5.2 allows 204).
    return { status: 204, headers: { ETag: etagOf(group.version) } };
  }),
  removeGroup: scim(async (context, { params, headers }) => {
    await removeScimGroup(context, params.id, headers['if-match']);
    return { status: 204 };
  }),
});
