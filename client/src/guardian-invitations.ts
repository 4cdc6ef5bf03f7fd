import type {
  Contract,
  CreateGuardianInvitationBody,
  GuardianInvitation,
  GuardianLink,
  MyGuardianInvitation,
} from '@tms/contract';
import {
  allPages,
  type ListQuery,
  type Page,
  type QueryOf,
  type Send,
  unwrap,
  unwrapPage,
} from './answers.js';
import type { CallOptions, CreateOptions } from './options.js';
import { routes } from './routes.js';

/**
 * Guardian invitations: a TEACHER and above invites an address to be a student's guardian; the
 * invitee lists, accepts (becoming an ACTIVE guardian) or declines those addressed to their
 * verified email. Every POST takes an idempotency key (made by the SDK when retries are on).
 */
export function guardianInvitationsOf(send: Send) {
  const r = routes.guardianInvitations;
  const guardianInvitations = {
    /** PENDING for 14 days; GUARDIAN_INVITATION_ALREADY_PENDING for a second one to the same student and address. */
    create: async (
      tenantId: string,
      userId: string,
      body: CreateGuardianInvitationBody,
      options: CreateOptions = {},
    ): Promise<GuardianInvitation> =>
      unwrap(await send({ route: r.create, params: { tenantId, userId }, body, options })),
    /** Addresses for ADMINs and above only (null for TEACHERs). */
    list: async (
      tenantId: string,
      query: QueryOf<Contract['guardianInvitations']['list']> = {},
      options: CallOptions = {},
    ): Promise<Page<GuardianInvitation>> =>
      unwrapPage(await send({ route: r.list, params: { tenantId }, query, options })),
    listAll: (
      tenantId: string,
      query: ListQuery<Contract['guardianInvitations']['list']> = {},
      options: CallOptions = {},
    ): AsyncGenerator<GuardianInvitation> =>
      allPages((cursor) => guardianInvitations.list(tenantId, { ...query, cursor }, options)),
    revoke: async (
      tenantId: string,
      guardianInvitationId: string,
      options: CreateOptions = {},
    ): Promise<GuardianInvitation> =>
      unwrap(await send({ route: r.revoke, params: { tenantId, guardianInvitationId }, body: {}, options })),
    listMine: async (options: CallOptions = {}): Promise<MyGuardianInvitation[]> =>
      unwrap(await send({ route: r.listMine, params: {}, options })),
    /** Answers the ACTIVE link the caller now has to the student. */
    accept: async (guardianInvitationId: string, options: CreateOptions = {}): Promise<GuardianLink> =>
      unwrap(await send({ route: r.accept, params: { guardianInvitationId }, body: {}, options })),
    decline: async (guardianInvitationId: string, options: CreateOptions = {}): Promise<GuardianInvitation> =>
      unwrap(await send({ route: r.decline, params: { guardianInvitationId }, body: {}, options })),
  };
  return guardianInvitations;
}
