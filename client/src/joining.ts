import type {
  ApproveJoinRequestBody,
  Contract,
  CreateJoinCodeBody,
  JoinCode,
  JoinPreview,
  JoinRequest,
  Membership,
  MyJoinRequest,
} from '@tms/contract';
import {
  allPages,
  type ListQuery,
  type Page,
  type QueryOf,
  type Send,
  unwrap,
  unwrapNoContent,
  unwrapPage,
} from './answers.js';
import type { CallOptions, CreateOptions } from './options.js';
import { routes } from './routes.js';

/**
 * What `join` did: `joined` (201), a new ACTIVE membership; `member` (200), the caller already
 * was an ACTIVE member, nothing changed; `requested` (202), the code requires approval.
 */
export type JoinResult =
  | { outcome: 'joined' | 'member'; membership: Membership }
  | { outcome: 'requested'; joinRequest: JoinRequest };

/**
 * A tenant's join codes (its TEACHERs and above), and redeeming one (anyone signed in). Tries to
 * redeem are limited tightly: RATE_LIMITED with `retryAfter`.
 */
export function joinCodesOf(send: Send) {
  const r = routes.joinCodes;
  const joinCodes = {
    create: async (
      tenantId: string,
      body: CreateJoinCodeBody = {},
      options: CreateOptions = {},
    ): Promise<JoinCode> => unwrap(await send({ route: r.create, params: { tenantId }, body, options })),
    list: async (
      tenantId: string,
      query: QueryOf<Contract['joinCodes']['list']> = {},
      options: CallOptions = {},
    ): Promise<Page<JoinCode>> =>
      unwrapPage(await send({ route: r.list, params: { tenantId }, query, options })),
    listAll: (
      tenantId: string,
      query: ListQuery<Contract['joinCodes']['list']> = {},
      options: CallOptions = {},
    ): AsyncGenerator<JoinCode> =>
      allPages((cursor) => joinCodes.list(tenantId, { ...query, cursor }, options)),
    /** New characters; the old ones stop at once. */
    rotate: async (tenantId: string, joinCodeId: string, options: CreateOptions = {}): Promise<JoinCode> =>
      unwrap(await send({ route: r.rotate, params: { tenantId, joinCodeId }, options })),
    revoke: async (tenantId: string, joinCodeId: string, options: CallOptions = {}): Promise<void> =>
      unwrapNoContent(await send({ route: r.revoke, params: { tenantId, joinCodeId }, options })),
    join: async (code: string, options: CreateOptions = {}): Promise<JoinResult> => {
      const res = await send({ route: r.join, params: {}, body: { code }, options });
      if (res.status === 202) return { outcome: 'requested', joinRequest: unwrap<JoinRequest>(res) };
      return { outcome: res.status === 201 ? 'joined' : 'member', membership: unwrap<Membership>(res) };
    },
    preview: async (code: string, options: CallOptions = {}): Promise<JoinPreview> =>
      unwrap(await send({ route: r.preview, params: { code }, options })),
  };
  return joinCodes;
}

/** Join requests: the tenant decides (`approve`, `reject`, `block`, `unblock`); the person lists and cancels their own. */
export function joinRequestsOf(send: Send) {
  const r = routes.joinRequests;
  const joinRequests = {
    list: async (
      tenantId: string,
      query: QueryOf<Contract['joinRequests']['list']> = {},
      options: CallOptions = {},
    ): Promise<Page<JoinRequest>> =>
      unwrapPage(await send({ route: r.list, params: { tenantId }, query, options })),
    listAll: (
      tenantId: string,
      query: ListQuery<Contract['joinRequests']['list']> = {},
      options: CallOptions = {},
    ): AsyncGenerator<JoinRequest> =>
      allPages((cursor) => joinRequests.list(tenantId, { ...query, cursor }, options)),
    /** Answers the new membership. */
    approve: async (
      tenantId: string,
      joinRequestId: string,
      body: ApproveJoinRequestBody = {},
      options: CreateOptions = {},
    ): Promise<Membership> =>
      unwrap(await send({ route: r.approve, params: { tenantId, joinRequestId }, body, options })),
    reject: async (
      tenantId: string,
      joinRequestId: string,
      options: CreateOptions = {},
    ): Promise<JoinRequest> =>
      unwrap(await send({ route: r.reject, params: { tenantId, joinRequestId }, options })),
    block: async (
      tenantId: string,
      joinRequestId: string,
      options: CreateOptions = {},
    ): Promise<JoinRequest> =>
      unwrap(await send({ route: r.block, params: { tenantId, joinRequestId }, options })),
    unblock: async (tenantId: string, userId: string, options: CallOptions = {}): Promise<void> =>
      unwrapNoContent(await send({ route: r.unblock, params: { tenantId, userId }, options })),
    listMine: async (options: CallOptions = {}): Promise<MyJoinRequest[]> =>
      unwrap(await send({ route: r.listMine, params: {}, options })),
    cancel: async (joinRequestId: string, options: CreateOptions = {}): Promise<JoinRequest> =>
      unwrap(await send({ route: r.cancel, params: { joinRequestId }, options })),
  };
  return joinRequests;
}
