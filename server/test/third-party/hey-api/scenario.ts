// What a third party writes with @hey-api/openapi-ts: an SDK and its fetch client, generated from
// the published OpenAPI document into ./generated/ (by the test, in a temporary directory, next to
// a copy of this file). Nothing here may import from this repository's contract or SDK.
import { createClient, createConfig } from './generated/client/index.js';
import {
  createMembership,
  createTenant,
  deleteMembership,
  getMembership,
  listMemberships,
  updateMembership,
} from './generated/sdk.gen.js';
import type { ErrorEnvelope, Membership } from './generated/types.gen.js';

export type HeyApiScenarioResult = {
  tenantSlug: string;
  replayedSameTenant: boolean;
  replayedHeader: string | null;
  addedRole: Membership['role'];
  listedRoles: Membership['role'][];
  listedTotal: number | undefined;
  etag: string | null;
  patchedRole: Membership['role'];
  patchedVersion: number;
  staleCode: ErrorEnvelope['error']['code'] | undefined;
  deleteStatus: number;
  lastOwnerCode: ErrorEnvelope['error']['code'] | undefined;
};

const fail = (step: string, error: unknown): never => {
  throw new Error(`${step}: ${JSON.stringify(error)}`);
};

export async function runScenario(
  baseUrl: string,
  token: string,
  suffix: string,
): Promise<HeyApiScenarioResult> {
  // The bearer scheme of the document: the client adds `Bearer ` to what `auth` gives.
  const client = createClient(createConfig({ baseUrl, auth: () => token }));

  const tenantBody = {
    name: 'Hey API School',
    slug: `hey-api-${suffix}`,
    owner: { email: `owner-${suffix}@hey.example`, displayName: 'Hey Owner' },
  };
  const idempotency = { 'idempotency-key': `create-tenant-${suffix}` };
  const created = await createTenant({ client, body: tenantBody, headers: idempotency });
  if (!created.data) return fail('create tenant', created.error);
  const tenantId = created.data.data.tenantId;
  // The same key and body again: the first answer, replayed, and no second tenant.
  const replayed = await createTenant({ client, body: tenantBody, headers: idempotency });
  if (!replayed.data) return fail('replay create tenant', replayed.error);

  const added = await createMembership({
    client,
    path: { tenantId },
    body: { role: 'TEACHER', email: `teacher-${suffix}@hey.example`, displayName: 'Hey Teacher' },
  });
  if (!added.data) return fail('add member', added.error);
  const teacher = added.data.data;

  const listed = await listMemberships({
    client,
    path: { tenantId },
    query: { sort: '-createdAt', includeTotal: true, limit: 10 },
  });
  if (!listed.data) return fail('list', listed.error);
  const owner = listed.data.data.find((membership) => membership.role === 'OWNER');
  if (!owner) throw new Error('no owner listed');

  const path = { tenantId, tenantMembershipId: teacher.tenantMembershipId };
  const read = await getMembership({ client, path });
  if (!read.data) return fail('read member', read.error);
  const etag = read.response.headers.get('ETag');

  const patched = await updateMembership({
    client,
    path,
    headers: { 'if-match': etag ?? '' },
    body: { role: 'ADMIN' },
  });
  if (!patched.data) return fail('patch', patched.error);
  // The ETag read before the change no longer matches.
  const stale = await updateMembership({
    client,
    path,
    headers: { 'if-match': etag ?? '' },
    body: { role: 'STUDENT' },
  });

  const deleted = await deleteMembership({
    client,
    path,
    headers: { 'if-match': patched.response.headers.get('ETag') ?? '' },
  });

  const refused = await deleteMembership({
    client,
    path: { tenantId, tenantMembershipId: owner.tenantMembershipId },
  });

  return {
    tenantSlug: created.data.data.slug,
    replayedSameTenant: replayed.data.data.tenantId === tenantId,
    replayedHeader: replayed.response.headers.get('Idempotent-Replayed'),
    addedRole: teacher.role,
    listedRoles: listed.data.data.map((membership) => membership.role),
    listedTotal: listed.data.meta.total,
    etag,
    patchedRole: patched.data.data.role,
    patchedVersion: patched.data.data.version,
    staleCode: stale.error?.error.code,
    deleteStatus: deleted.response.status,
    lastOwnerCode: refused.error?.error.code,
  };
}
