// What a third party writes: types generated from the published OpenAPI document, and a generic
// fetch client. Nothing here may import from this repository's contract or SDK.
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/api.js';

type ResponseCode = components['schemas']['ResponseCode'];

export type ScenarioResult = {
  tenantSlug: string;
  addedRole: string;
  listedRoles: string[];
  patchedRole: string;
  patchedVersion: number;
  deleteStatus: number;
  lastOwnerCode: ResponseCode | undefined;
};

export async function runScenario(baseUrl: string, token: string, suffix: string): Promise<ScenarioResult> {
  const api = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });

  const created = await api.POST('/admin/tenants', {
    body: {
      name: 'Third Party School',
      slug: `third-party-${suffix}`,
      owner: { email: `owner-${suffix}@third.example` },
    },
  });
  if (!created.data) throw new Error(`create tenant: ${JSON.stringify(created.error)}`);
  const tenantId = created.data.data.tenantId;

  const added = await api.POST('/tenants/{tenantId}/memberships', {
    params: { path: { tenantId } },
    body: { role: 'TEACHER', email: `teacher-${suffix}@third.example`, displayName: 'Third Teacher' },
  });
  if (!added.data) throw new Error(`add member: ${JSON.stringify(added.error)}`);
  const teacher = added.data.data;

  const listed = await api.GET('/tenants/{tenantId}/memberships', {
    params: { path: { tenantId }, query: { limit: 10 } },
  });
  if (!listed.data) throw new Error(`list: ${JSON.stringify(listed.error)}`);
  const owner = listed.data.data.find((membership) => membership.role === 'OWNER');
  if (!owner) throw new Error('no owner listed');

  const patched = await api.PATCH('/tenants/{tenantId}/memberships/{tenantMembershipId}', {
    params: {
      path: { tenantId, tenantMembershipId: teacher.tenantMembershipId },
      header: { 'if-match': `"${teacher.version}"` },
    },
    body: { role: 'ADMIN' },
  });
  if (!patched.data) throw new Error(`patch: ${JSON.stringify(patched.error)}`);

  const deleted = await api.DELETE('/tenants/{tenantId}/memberships/{tenantMembershipId}', {
    params: { path: { tenantId, tenantMembershipId: teacher.tenantMembershipId } },
  });

  const refused = await api.DELETE('/tenants/{tenantId}/memberships/{tenantMembershipId}', {
    params: { path: { tenantId, tenantMembershipId: owner.tenantMembershipId } },
  });

  return {
    tenantSlug: created.data.data.slug,
    addedRole: teacher.role,
    listedRoles: listed.data.data.map((membership) => membership.role),
    patchedRole: patched.data.data.role,
    patchedVersion: patched.data.data.version,
    deleteStatus: deleted.response.status,
    lastOwnerCode: refused.error?.error.code,
  };
}
