import type {
  CreateScimTokenBody,
  NewScimToken,
  ScimGroupRole,
  ScimGroupSummary,
  ScimToken,
} from '@tms/contract';
import { type Send, unwrap, unwrapNoContent } from './answers.js';
import type { CallOptions, CreateOptions } from './options.js';
import { routes } from './routes.js';

/**
 * A tenant's SCIM tokens (its OWNERs and ADMINs): the `token` that `create` answers is shown
 * this once; give it to the directory with `baseUrl`. Two may be live at once, for rotation.
 */
export function scimTokensOf(send: Send) {
  const r = routes.scimTokens;
  return {
    create: async (
      tenantId: string,
      body: CreateScimTokenBody = {},
      options: CreateOptions = {},
    ): Promise<NewScimToken> => unwrap(await send({ route: r.create, params: { tenantId }, body, options })),
    list: async (tenantId: string, options: CallOptions = {}): Promise<ScimToken[]> =>
      unwrap(await send({ route: r.list, params: { tenantId }, options })),
    /** The token stops working at once. */
    revoke: async (tenantId: string, scimTokenId: string, options: CallOptions = {}): Promise<void> =>
      unwrapNoContent(await send({ route: r.revoke, params: { tenantId, scimTokenId }, options })),
  };
}

/** The directory's groups, and the role each gives its members (ADMIN, TEACHER, STUDENT). */
export function scimGroupsOf(send: Send) {
  const r = routes.scimGroups;
  return {
    list: async (tenantId: string, options: CallOptions = {}): Promise<ScimGroupSummary[]> =>
      unwrap(await send({ route: r.list, params: { tenantId }, options })),
    setRole: async (
      tenantId: string,
      groupId: string,
      role: ScimGroupRole,
      options: CallOptions = {},
    ): Promise<ScimGroupSummary> =>
      unwrap(await send({ route: r.setRole, params: { tenantId, groupId }, body: { role }, options })),
    unmapRole: async (
      tenantId: string,
      groupId: string,
      options: CallOptions = {},
    ): Promise<ScimGroupSummary> =>
      unwrap(await send({ route: r.unmapRole, params: { tenantId, groupId }, options })),
  };
}
