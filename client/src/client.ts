import type {
  Contract,
  CreateMembershipBody,
  CreateTenantBody,
  Me,
  Membership,
  SuspendMembershipBody,
  Tenant,
  UpdateMembershipBody,
  UpdateTenantBody,
} from '@tms/contract';
import {
  type Answered,
  allPages,
  type BodyOf,
  ifMatchHeaders,
  type ListQuery,
  type Page,
  type QueryOf,
  unwrap,
  unwrapNoContent,
  unwrapPage,
  unwrapProbe,
} from './answers.js';
import { auditEventsOf } from './audit-events.js';
import { domainsOf } from './domains.js';
import { guardianInvitationsOf } from './guardian-invitations.js';
import { guardiansOf } from './guardians.js';
import { invitationsOf } from './invitations.js';
import { joinCodesOf, joinRequestsOf } from './joining.js';
import type { CallOptions, ChangeOptions, ClientOptions, CreateOptions } from './options.js';
import { ownershipTransfersOf } from './ownership-transfers.js';
import { routes } from './routes.js';
import { scimGroupsOf, scimTokensOf } from './scim.js';
import { type Call, createTransport, type Route } from './transport.js';
import { platformWebhooksOf, webhooksOf } from './webhooks.js';

export type { Page, QueryOf } from './answers.js';
export type { JoinResult } from './joining.js';

/**
 * The typed SDK: one method per route, answering the resource itself and throwing ApiError
 * (with a typed `code`) or NetworkError. Its runtime knows each route's method and path only
 * (routes.ts); the types all come from the contract.
 */
export function createClient(clientOptions: ClientOptions) {
  const transport = createTransport(clientOptions);
  const send = async <R extends Route>(call: Call<R>): Promise<Answered> => ({
    ...(await transport(call)),
    what: `${call.route.method} ${call.route.path}`,
  });
  const r = routes;

  const tenants = {
    create: async (body: CreateTenantBody, options: CreateOptions = {}): Promise<Tenant> =>
      unwrap(await send({ route: r.tenants.create, params: {}, body, options })),
    list: async (
      query: QueryOf<Contract['tenants']['list']> = {},
      options: CallOptions = {},
    ): Promise<Page<Tenant>> => unwrapPage(await send({ route: r.tenants.list, params: {}, query, options })),
    listAll: (
      query: ListQuery<Contract['tenants']['list']> = {},
      options: CallOptions = {},
    ): AsyncGenerator<Tenant> => allPages((cursor) => tenants.list({ ...query, cursor }, options)),
    get: async (tenantId: string, options: CallOptions = {}): Promise<Tenant> =>
      unwrap(await send({ route: r.tenants.get, params: { tenantId }, options })),
    /** With `ifMatch` (a tenant's `version`), refuses with PRECONDITION_FAILED if it changed since. */
    update: async (tenantId: string, body: UpdateTenantBody, options: ChangeOptions = {}): Promise<Tenant> =>
      unwrap(
        await send({
          route: r.tenants.update,
          params: { tenantId },
          body,
          headers: ifMatchHeaders(options),
          options,
        }),
      ),
    /** Marks the tenant deleted: restorable with `restore` until its `purgeAfter`. */
    remove: async (tenantId: string, options: ChangeOptions = {}): Promise<void> =>
      unwrapNoContent(
        await send({
          route: r.tenants.remove,
          params: { tenantId },
          headers: ifMatchHeaders(options),
          options,
        }),
      ),
    /** Brings a deleted tenant back until its `purgeAfter`; an active one is answered unchanged. */
    restore: async (tenantId: string, options: CreateOptions = {}): Promise<Tenant> =>
      unwrap(await send({ route: r.tenants.restore, params: { tenantId }, options })),
  };

  const memberships = {
    list: async (
      tenantId: string,
      query: QueryOf<Contract['memberships']['list']> = {},
      options: CallOptions = {},
    ): Promise<Page<Membership>> =>
      unwrapPage(await send({ route: r.memberships.list, params: { tenantId }, query, options })),
    listAll: (
      tenantId: string,
      query: ListQuery<Contract['memberships']['list']> = {},
      options: CallOptions = {},
    ): AsyncGenerator<Membership> =>
      allPages((cursor) => memberships.list(tenantId, { ...query, cursor }, options)),
    get: async (
      tenantId: string,
      tenantMembershipId: string,
      options: CallOptions = {},
    ): Promise<Membership> =>
      unwrap(await send({ route: r.memberships.get, params: { tenantId, tenantMembershipId }, options })),
    create: async (
      tenantId: string,
      body: CreateMembershipBody,
      options: CreateOptions = {},
    ): Promise<Membership> =>
      unwrap(await send({ route: r.memberships.create, params: { tenantId }, body, options })),
    /** With `ifMatch` (a membership's `version`), refuses with PRECONDITION_FAILED if it changed since. */
    update: async (
      tenantId: string,
      tenantMembershipId: string,
      body: UpdateMembershipBody,
      options: ChangeOptions = {},
    ): Promise<Membership> =>
      unwrap(
        await send({
          route: r.memberships.update,
          params: { tenantId, tenantMembershipId },
          body,
          headers: ifMatchHeaders(options),
          options,
        }),
      ),
    remove: async (
      tenantId: string,
      tenantMembershipId: string,
      options: ChangeOptions = {},
    ): Promise<void> =>
      unwrapNoContent(
        await send({
          route: r.memberships.remove,
          params: { tenantId, tenantMembershipId },
          headers: ifMatchHeaders(options),
          options,
        }),
      ),
    /** Keeps the membership and its role, but it grants no access until `reactivate`. */
    suspend: async (
      tenantId: string,
      tenantMembershipId: string,
      body: SuspendMembershipBody = {},
      options: ChangeOptions & CreateOptions = {},
    ): Promise<Membership> =>
      unwrap(
        await send({
          route: r.memberships.suspend,
          params: { tenantId, tenantMembershipId },
          body,
          headers: ifMatchHeaders(options),
          options,
        }),
      ),
    /** ACTIVE now, role unchanged: lifts the suspension, a passed `endsAt` and a future `startsAt`. */
    reactivate: async (
      tenantId: string,
      tenantMembershipId: string,
      options: ChangeOptions & CreateOptions = {},
    ): Promise<Membership> =>
      unwrap(
        await send({
          route: r.memberships.reactivate,
          params: { tenantId, tenantMembershipId },
          body: {},
          headers: ifMatchHeaders(options),
          options,
        }),
      ),
  };

  return {
    tenants,
    memberships,
    invitations: invitationsOf(send),
    joinCodes: joinCodesOf(send),
    joinRequests: joinRequestsOf(send),
    domains: domainsOf(send),
    ownershipTransfers: ownershipTransfersOf(send),
    auditEvents: auditEventsOf(send),
    scimTokens: scimTokensOf(send),
    scimGroups: scimGroupsOf(send),
    webhooks: webhooksOf(send),
    platformWebhooks: platformWebhooksOf(send),
    guardians: guardiansOf(send),
    guardianInvitations: guardianInvitationsOf(send),
    users: {
      /**
       * Erases a user for privacy (super administrators): memberships removed, name and email
       * replaced by a pseudonym everywhere, the audit trail included. LAST_OWNER while the user is
       * a tenant's last ACTIVE OWNER; USER_NOT_FOUND once erased.
       */
      erase: async (userId: string, options: CallOptions = {}): Promise<void> =>
        unwrapNoContent(await send({ route: r.users.erase, params: { userId }, options })),
    },
    me: async (options: CallOptions = {}): Promise<Me> =>
      unwrap(await send({ route: r.me.get, params: {}, options })),
    /** Probes answer bare bodies; readiness and the report also answer them with 503. */
    health: {
      live: async (options: CallOptions = {}): Promise<BodyOf<Contract['health']['live'], 200>> =>
        unwrapProbe(await send({ route: r.health.live, params: {}, options }), [200]),
      ready: async (options: CallOptions = {}): Promise<BodyOf<Contract['health']['ready'], 200 | 503>> =>
        unwrapProbe(await send({ route: r.health.ready, params: {}, options, answers: [503] }), [200, 503]),
      report: async (options: CallOptions = {}): Promise<BodyOf<Contract['health']['report'], 200 | 503>> =>
        unwrapProbe(await send({ route: r.health.report, params: {}, options, answers: [503] }), [200, 503]),
    },
  };
}
export type Client = ReturnType<typeof createClient>;
