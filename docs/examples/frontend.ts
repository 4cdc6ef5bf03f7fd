import { createClient, isApiError, NetworkError } from '@tms/client';

/** Promote a teacher to admin, as a school's admin screen would. */
export async function promoteToAdmin(
  baseUrl: string,
  getToken: () => Promise<string>,
  tenantId: string,
  email: string,
) {
  const members = createClient({ baseUrl, token: getToken }); // called before each request: refresh freely
  try {
    for await (const membership of members.memberships.listAll(tenantId, { q: email, role: 'TEACHER' })) {
      // If-Match: refused with PRECONDITION_FAILED if someone changed it since we read it.
      return await members.memberships.update(
        tenantId,
        membership.tenantMembershipId,
        { role: 'ADMIN' },
        { ifMatch: membership.version },
      );
    }
    return undefined; // no teacher with that email
  } catch (error) {
    if (error instanceof NetworkError) throw new Error('You are offline; try again.');
    if (isApiError(error, 'ROLE_HIERARCHY_VIOLATION')) throw new Error('Only an owner can do that.');
    if (isApiError(error, 'PRECONDITION_FAILED')) throw new Error('Someone else just changed it; reload.');
    throw error;
  }
}
