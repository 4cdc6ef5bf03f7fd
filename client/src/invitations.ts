import type { Contract, CreateInvitationBody, Invitation, Membership, MyInvitation } from '@tms/contract';
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
 * Invitations a person accepts. A tenant's admins create, list, resend and revoke them; the
 * invitee (`listMine`, `accept`, `decline`) sees only those addressed to their verified email.
 * Every POST takes an idempotency key (made by the SDK when retries are on), so a retry is safe.
 */
export function invitationsOf(send: Send) {
  const r = routes.invitations;
  const invitations = {
    create: async (
      tenantId: string,
      body: CreateInvitationBody,
      options: CreateOptions = {},
    ): Promise<Invitation> => unwrap(await send({ route: r.create, params: { tenantId }, body, options })),
    list: async (
      tenantId: string,
      query: QueryOf<Contract['invitations']['list']> = {},
      options: CallOptions = {},
    ): Promise<Page<Invitation>> =>
      unwrapPage(await send({ route: r.list, params: { tenantId }, query, options })),
    listAll: (
      tenantId: string,
      query: ListQuery<Contract['invitations']['list']> = {},
      options: CallOptions = {},
    ): AsyncGenerator<Invitation> =>
      allPages((cursor) => invitations.list(tenantId, { ...query, cursor }, options)),
    get: async (tenantId: string, invitationId: string, options: CallOptions = {}): Promise<Invitation> =>
      unwrap(await send({ route: r.get, params: { tenantId, invitationId }, options })),
    /** A PENDING or EXPIRED invitation, PENDING again for 7 days from now. */
    resend: async (
      tenantId: string,
      invitationId: string,
      options: CreateOptions = {},
    ): Promise<Invitation> =>
      unwrap(await send({ route: r.resend, params: { tenantId, invitationId }, options })),
    revoke: async (
      tenantId: string,
      invitationId: string,
      options: CreateOptions = {},
    ): Promise<Invitation> =>
      unwrap(await send({ route: r.revoke, params: { tenantId, invitationId }, options })),
    /** The caller's pending invitations, each with the tenant's slug and name. */
    listMine: async (options: CallOptions = {}): Promise<MyInvitation[]> =>
      unwrap(await send({ route: r.listMine, params: {}, options })),
    /** Answers the caller's new membership. */
    accept: async (invitationId: string, options: CreateOptions = {}): Promise<Membership> =>
      unwrap(await send({ route: r.accept, params: { invitationId }, options })),
    decline: async (invitationId: string, options: CreateOptions = {}): Promise<Invitation> =>
      unwrap(await send({ route: r.decline, params: { invitationId }, options })),
  };
  return invitations;
}
