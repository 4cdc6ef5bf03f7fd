import { contract } from '@tms/contract';
import { read, routes, tenantWrite, write } from '../../pipeline/handlers.js';
import { toMembershipDto } from '../memberships/memberships.dto.js';
import { etagOf } from '../shared/if-match.js';
import {
  approveJoinRequest,
  blockJoinRequest,
  liftJoinBlock,
  listJoinRequestsPage,
  rejectJoinRequest,
} from './join-requests.service.js';
import { toJoinRequestDto, toMyJoinRequestDto } from './joining.dto.js';
import { cancelMyJoinRequest, listMyJoinRequests } from './my-join-requests.service.js';

/** The tenant's decisions on join requests (under its lock), and the person's own list and cancel. */
export const joinRequestsRoutes = routes(contract.joinRequests, {
  list: read(async ({ db, requester }, { query }) => {
    const page = await listJoinRequestsPage(db, requester, query);
    return { status: 200, data: page.items.map(toJoinRequestDto), meta: { nextCursor: page.nextCursor } };
  }),
  approve: tenantWrite(async (change, { params, body }) => {
    const membership = await approveJoinRequest(change, params.joinRequestId, body);
    return { status: 201, data: toMembershipDto(membership), headers: { ETag: etagOf(membership.version) } };
  }),
  reject: tenantWrite(async (change, { params }) => ({
    status: 200,
    data: toJoinRequestDto(await rejectJoinRequest(change, params.joinRequestId)),
  })),
  block: tenantWrite(async (change, { params }) => ({
    status: 200,
    data: toJoinRequestDto(await blockJoinRequest(change, params.joinRequestId)),
  })),
  unblock: tenantWrite(async (change, { params }) => {
    await liftJoinBlock(change, params.userId);
    return { status: 204 };
  }),
  listMine: read(async ({ db, requester }) => ({
    status: 200,
    data: (await listMyJoinRequests(db, requester)).map(toMyJoinRequestDto),
  })),
  cancel: write(async ({ db, audit }, { params }) => ({
    status: 200,
    data: toJoinRequestDto(await cancelMyJoinRequest(db, audit, params.joinRequestId)),
  })),
});
