import { contract } from '@tms/contract';
import { read, routes, tenantWrite, write } from '../../pipeline/handlers.js';
import { toMembershipDto } from '../memberships/memberships.dto.js';
import { etagOf } from '../shared/if-match.js';
import { toInvitationDto, toMyInvitationDto } from './invitations.dto.js';
import {
  createInvitation,
  getInvitation,
  listInvitationsPage,
  resendInvitation,
  revokeInvitation,
} from './invitations.service.js';
import { acceptInvitation, declineInvitation, listMyInvitations } from './my-invitations.service.js';

/**
 * Tenant routes (reads decide on the caller read with their data; changes run in the transaction
 * that locks the tenant), and the invitee's routes under /me, whose answers own their transaction
 * (they lock the invitation's tenant, which the URL does not name).
 */
export const invitationsRoutes = routes(contract.invitations, {
  create: tenantWrite(async (change, { body }) => ({
    status: 201,
    data: toInvitationDto(await createInvitation(change, body)),
  })),
  list: read(async ({ db, requester }, { query }) => {
    const page = await listInvitationsPage(db, requester, query);
    return { status: 200, data: page.items.map(toInvitationDto), meta: { nextCursor: page.nextCursor } };
  }),
  get: read(async ({ db, requester }, { params }) => ({
    status: 200,
    data: toInvitationDto(await getInvitation(db, requester, params.invitationId)),
  })),
  resend: tenantWrite(async (change, { params }) => ({
    status: 200,
    data: toInvitationDto(await resendInvitation(change, params.invitationId)),
  })),
  revoke: tenantWrite(async (change, { params }) => ({
    status: 200,
    data: toInvitationDto(await revokeInvitation(change, params.invitationId)),
  })),
  listMine: read(async ({ db, requester }) => ({
    status: 200,
    data: (await listMyInvitations(db, requester)).map(toMyInvitationDto),
  })),
  accept: write(async ({ db, audit }, { params }) => {
    const membership = await acceptInvitation(db, audit, params.invitationId);
    return {
      status: 201,
      data: toMembershipDto(membership),
      headers: { ETag: etagOf(membership.version) },
    };
  }),
  decline: write(async ({ db, audit }, { params }) => ({
    status: 200,
    data: toInvitationDto(await declineInvitation(db, audit, params.invitationId)),
  })),
});
