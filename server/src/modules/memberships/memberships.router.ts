import { contract } from '@tms/contract';
import { read, routes, tenantWriteOn } from '../../pipeline/handlers.js';
import { etagOf } from '../shared/if-match.js';
import { changeMembership, reactivateMembership, suspendMembership } from './membership-updates.service.js';
import { toMembershipDto } from './memberships.dto.js';
import type { MembershipWithUser } from './memberships.repository.js';
import {
  createMembership,
  getMembership,
  listMembershipsPage,
  readNamedMembership,
  readPersonToAdd,
  removeMembership,
} from './memberships.service.js';

/**
 * A tenant's memberships. Reads decide on the caller read in their own statement; changes run in
 * the transaction that locks the tenant and decides there (pipeline/tenant-transaction.ts), which
 * commits when the handler returns. A change of one membership reads it in the round trip that
 * takes the lock (readNamedMembership).
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
  create: tenantWriteOn(readPersonToAdd, async (write, { body }, person) =>
    withEtag(201, await createMembership(write, body, person)),
  ),
  update: tenantWriteOn(readNamedMembership, async (write, { body, headers }, named) =>
    withEtag(200, await changeMembership(write, named, body, headers['if-match'])),
  ),
  suspend: tenantWriteOn(readNamedMembership, async (write, { body, headers }, named) =>
    withEtag(200, await suspendMembership(write, named, body, headers['if-match'])),
  ),
  reactivate: tenantWriteOn(readNamedMembership, async (write, { headers }, named) =>
    withEtag(200, await reactivateMembership(write, named, headers['if-match'])),
  ),
  remove: tenantWriteOn(readNamedMembership, async (write, { headers }, named) => {
    await removeMembership(write, named, headers['if-match']);
    return { status: 204 };
  }),
});

const withEtag = <S extends 200 | 201>(status: S, membership: MembershipWithUser) => ({
  status,
  data: toMembershipDto(membership),
  headers: { ETag: etagOf(membership.version) },
});
