import { contract } from '@tms/contract';
import { read, routes, tenantWrite, write } from '../../pipeline/handlers.js';
import {
  toGuardianInvitationDto,
  toMyGuardianInvitationDto,
  toSchoolGuardianInvitationDto,
} from './guardian-invitations.dto.js';
import {
  createGuardianInvitation,
  listGuardianInvitationsPage,
  revokeGuardianInvitation,
} from './guardian-invitations.service.js';
import { toGuardianLinkDto } from './guardians.dto.js';
import {
  acceptGuardianInvitation,
  declineGuardianInvitation,
  listMyGuardianInvitations,
} from './my-guardian-invitations.service.js';

/**
 * The school's routes (the list decides on the caller read with its data; changes run in the
 * transaction that locks the tenant) and the invitee's under /me, whose answers own their
 * transaction (they lock the invitation's tenant, which the URL does not name).
 */
export const guardianInvitationsRoutes = routes(contract.guardianInvitations, {
  // The creator typed the address: their answer shows it, whatever their role.
  create: tenantWrite(async (change, { params, body }) => ({
    status: 201,
    data: toGuardianInvitationDto(await createGuardianInvitation(change, params.userId, body)),
  })),
  list: read(async ({ db, requester }, { query }) => {
    const { access, page } = await listGuardianInvitationsPage(db, requester, query);
    return {
      status: 200,
      data: page.items.map((row) => toSchoolGuardianInvitationDto(row, access)),
      meta: { nextCursor: page.nextCursor },
    };
  }),
  revoke: tenantWrite(async (change, { params }) => ({
    status: 200,
    data: toSchoolGuardianInvitationDto(
      await revokeGuardianInvitation(change, params.guardianInvitationId),
      change.access,
    ),
  })),
  listMine: read(async ({ db, requester }) => ({
    status: 200,
    data: (await listMyGuardianInvitations(db, requester)).map(toMyGuardianInvitationDto),
  })),
  accept: write(async ({ db, audit }, { params }) => ({
    status: 201,
    data: toGuardianLinkDto(await acceptGuardianInvitation(db, audit, params.guardianInvitationId)),
  })),
  decline: write(async ({ db, audit }, { params }) => ({
    status: 200,
    data: toGuardianInvitationDto(await declineGuardianInvitation(db, audit, params.guardianInvitationId)),
  })),
});
