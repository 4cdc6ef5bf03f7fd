import { createClient } from '@tms/client';
import type { Actor } from './factories.js';
import type { TestServer } from './harness.js';

export const SCIM_JSON = 'application/scim+json';

/** A SCIM token of the tenant, made through the API by one of its admins. */
export async function scimTokenOf(h: TestServer, admin: Actor, tenantId: string): Promise<string> {
  const sdk = createClient({ baseUrl: h.baseUrl, token: admin.token, retries: false });
  return (await sdk.scimTokens.create(tenantId, { description: 'test directory' })).token;
}

/** What a SCIM answer may hold, loosely: a resource, a list of them, or an error. */
export type ScimResource = {
  id: string;
  userName: string;
  active: boolean;
  displayName?: string;
  externalId?: string;
  name: Record<string, string>;
  members?: { value: string; display?: string }[];
  meta: { version: string; location: string };
  [attribute: string]: unknown;
};
export type ScimBody = ScimResource & {
  Resources: ScimResource[];
  totalResults: number;
  itemsPerPage: number;
  status: string;
  scimType?: string;
};
export type ScimResponse = { status: number; body: ScimBody; headers: Headers };

/** A directory's client: raw fetch, as a directory sends (media type, bearer, bodies as given). */
export function scimClient(h: TestServer, tenantId: string, token: string) {
  const base = `${h.baseUrl}/tenants/${tenantId}/scim/v2`;
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ScimResponse> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined && { 'content-type': SCIM_JSON }),
        ...headers,
      },
      ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  };
  return {
    base,
    get: (path: string, headers?: Record<string, string>) => call('GET', path, undefined, headers),
    post: (path: string, body: unknown, headers?: Record<string, string>) =>
      call('POST', path, body, headers),
    put: (path: string, body: unknown, headers?: Record<string, string>) => call('PUT', path, body, headers),
    patch: (path: string, body: unknown, headers?: Record<string, string>) =>
      call('PATCH', path, body, headers),
    delete: (path: string, headers?: Record<string, string>) => call('DELETE', path, undefined, headers),
  };
}

export type ScimClient = ReturnType<typeof scimClient>;

export const newUser = (email: string, extra: Record<string, unknown> = {}) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
  userName: email,
  name: { givenName: 'Ada', familyName: 'Lovelace' },
  emails: [{ value: email, type: 'work', primary: true }],
  active: true,
  ...extra,
});

export const patchOp = (...operations: unknown[]) => ({
  schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
  Operations: operations,
});
