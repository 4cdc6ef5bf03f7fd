import { type Me, ROLE_LEVEL } from '@tms/contract';
import type { Caller } from '../../access/caller.js';
import type { Database } from '../../db/database.js';
import { listMembershipsOfUser } from './me.repository.js';

export async function describeCaller(db: Database, caller: Caller): Promise<Me> {
  const memberships = await listMembershipsOfUser(db, caller.userId);
  return {
    user: {
      userId: caller.userId,
      email: caller.email,
      displayName: caller.displayName,
      isSuperAdmin: caller.isSuperAdmin,
    },
    memberships: memberships.map((m) => ({ ...m, roleLevel: ROLE_LEVEL[m.role] })),
  };
}
