import { contract } from '@tms/contract';
import { scimBaseUrlOf } from '../../http/scim-base-url.js';
import { read, routes, tenantWrite } from '../../pipeline/handlers.js';
import { createScimToken, listScimTokens, revokeScimToken } from './scim-tokens.service.js';

/** A tenant's SCIM tokens: made, listed and revoked by its OWNERs and ADMINs. */
export const scimTokensRoutes = routes(contract.scimTokens, {
  create: tenantWrite(async (write, { req, body }) => ({
    status: 201,
    data: await createScimToken(write, body, scimBaseUrlOf(req, write.access.tenantId)),
  })),
  list: read(async ({ db, requester }) => ({ status: 200, data: await listScimTokens(db, requester) })),
  revoke: tenantWrite(async (write, { params }) => {
    await revokeScimToken(write, params.scimTokenId);
    return { status: 204 };
  }),
});
