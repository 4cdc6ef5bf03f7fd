import type { JoinCode, Role } from '@tms/contract';
import {
  type Actor,
  addMember,
  createActor,
  createTenantFixture,
  type TenantFixture,
} from '../support/factories.js';
import type { TestServer } from '../support/harness.js';
import { sdkOf } from '../support/sdk.js';

/** A tenant with one member of each role below OWNER, as the joining tests need them. */
export type School = TenantFixture & { admin: Actor; teacher: Actor; student: Actor };

export async function schoolOf(h: TestServer): Promise<School> {
  const t = await createTenantFixture(h);
  const admin = (await addMember(h, t.tenantId, 'ADMIN')).actor;
  const teacher = (await addMember(h, t.tenantId, 'TEACHER')).actor;
  const student = (await addMember(h, t.tenantId, 'STUDENT')).actor;
  return { ...t, admin, teacher, student };
}

/** A code of the school, made by its OWNER unless someone else is named. */
export async function codeOf(
  h: TestServer,
  school: School,
  body: { role?: Exclude<Role, 'OWNER' | 'ADMIN'>; maxUses?: number; requiresApproval?: boolean } = {},
  maker: Actor = school.owner,
): Promise<JoinCode & { code: string }> {
  const code = await sdkOf(h, maker).joinCodes.create(school.tenantId, body);
  if (code.code === null) throw new Error('a new code without its characters');
  return { ...code, code: code.code };
}

/** Someone who is nobody's member yet. */
export const stranger = (h: TestServer) => createActor(h);
