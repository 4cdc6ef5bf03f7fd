import { contract } from '@tms/contract';
import { read, routes, tenantWrite } from '../../pipeline/handlers.js';
import { etagOf } from '../shared/if-match.js';
import { changeMembership, reactivateMembership, suspendMembership } from './membership-updates.service.js';
import { toMembershipDto } from './memberships.dto.js';
import type { MembershipWithUser } from './memberships.repository.js';
import {
  createMembership,
  getMembership,
  listMembershipsPage,
  removeMembership,
} from './memberships.service.js';

/**
 * A tenant's memberships. Reads decide on the caller read in their own statement; changes run in
 * the transaction that locks the tenant and decides there (pipeline/tenant-transaction.ts), which
 * commits when the handler returns.
 */
export const membershipsRoutes = routes(contract.memberships, {
  list: read(async ({ db, requester }, { query }) => {
    const page = await listMembershipsPage(db, requester, query);
    const meta = {
      nextCursor: page.nextCursor,
      ...(page.total === undefined ? {} : { total: page.total }),
    };
    return { status: 200, data: page.items.map(toMembershipDto), meta };
  }),
  get: read(async ({ db, requester }, { params }) =>
    withEtag(200, await getMembership(db, requester, params.tenantMembershipId)),
  ),
  create: tenantWrite(async (write, { body }) => withEtag(201, await createMembership(write, body))),
  update: tenantWrite(async (write, { params, body, headers }) =>
    withEtag(200, await changeMembership(write, params.tenantMembershipId, body, headers['if-match'])),
  ),
  suspend: tenantWrite(async (write, { params, body, headers }) =>
    withEtag(200, await suspendMembership(write, params.tenantMembershipId, body, headers['if-match'])),
  ),
  reactivate: tenantWrite(async (write, { params, headers }) =>
    withEtag(200, await reactivateMembership(write, params.tenantMembershipId, headers['if-match'])),
  ),
  remove: tenantWrite(async (write, { params, headers }) => {
    await removeMembership(write, params.tenantMembershipId, headers['if-match']);
    return { status: 204 };
  }),
});

const withEtag = <S extends 200 | 201>(status: S, membership: MembershipWithUser) => ({
  status,
  data: toMembershipDto(membership),
  headers: { ETag: etagOf(membership.version) },
});
