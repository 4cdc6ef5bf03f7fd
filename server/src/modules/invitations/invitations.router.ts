import { contract } from '@tms/contract';
import type { Database } from '../../db/database.js';
import { enveloped } from '../../routing/enveloped.js';
import {
  auditContextOf,
  callerOf,
  requesterOf,
  tenantAccessOf,
  transactionOf,
} from '../../routing/request-context.js';
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
 * their access was decided in), and the invitee's routes under /me, whose answers own their
 * transaction (they lock the invitation's tenant, which the URL does not name).
 */
export const invitationsRouter = (db: Database) =>
  enveloped(contract.invitations, {
    create: async ({ req, body }) => ({
      status: 201,
      data: toInvitationDto(
        await createInvitation(
          transactionOf(req),
          tenantAccessOf(req),
          auditContextOf(req),
          callerOf(req).userId,
          body,
        ),
      ),
    }),
    list: async ({ req, query }) => {
      const page = await listInvitationsPage(db, requesterOf(req), query);
      return { status: 200, data: page.items.map(toInvitationDto), meta: { nextCursor: page.nextCursor } };
    },
    get: async ({ req, params }) => ({
      status: 200,
      data: toInvitationDto(await getInvitation(db, requesterOf(req), params.invitationId)),
    }),
    resend: async ({ req, params }) => ({
      status: 200,
      data: toInvitationDto(
        await resendInvitation(
          transactionOf(req),
          tenantAccessOf(req),
          auditContextOf(req),
          params.invitationId,
        ),
      ),
    }),
    revoke: async ({ req, params }) => ({
      status: 200,
      data: toInvitationDto(
        await revokeInvitation(
          transactionOf(req),
          tenantAccessOf(req),
          auditContextOf(req),
          params.invitationId,
        ),
      ),
    }),
    listMine: async ({ req }) => ({
      status: 200,
      data: (await listMyInvitations(db, requesterOf(req))).map(toMyInvitationDto),
    }),
    accept: async ({ req, params }) => {
      const membership = await acceptInvitation(db, auditContextOf(req), params.invitationId);
      return {
        status: 201,
        data: toMembershipDto(membership),
        headers: { ETag: etagOf(membership.version) },
      };
    },
    decline: async ({ req, params }) => ({
      status: 200,
      data: toInvitationDto(await declineInvitation(db, auditContextOf(req), params.invitationId)),
    }),
  });
