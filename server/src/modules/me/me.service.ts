import { type Me, ROLE_LEVEL } from '@tms/contract';
import { type Requester, readAsCaller } from '../../access/read-as-caller.js';
import type { Database } from '../../db/database.js';
import { findGuardianships } from '../guardians/guardian-reads.repository.js';
import { findCallerWithMemberships } from './me.repository.js';

export async function describeCaller(db: Database, requester: Requester): Promise<Me> {
  const { caller, items } = await readAsCaller(db, requester, (subject) =>
    findCallerWithMemberships(db, subject),
  );
  return {
    user: {
      userId: caller.userId,
      email: caller.email,
      displayName: caller.displayName,
      isSuperAdmin: caller.isSuperAdmin,
    },
    memberships: items.map((m) => ({
      ...m,
      roleLevel: ROLE_LEVEL[m.role],
      startsAt: m.startsAt?.toISOString() ?? null,
      endsAt: m.endsAt?.toISOString() ?? null,
    })),
    guardianOf: byTenant(await findGuardianships(db, caller.userId)),
  };
}

/** The caller's guardianships, one entry per tenant (the rows come ordered by tenant). */
function byTenant(rows: Awaited<ReturnType<typeof findGuardianships>>): Me['guardianOf'] {
  const tenants: Me['guardianOf'] = [];
  for (const { studentUserId, ...tenant } of rows) {
    const last = tenants.at(-1);
    if (last?.tenantId === tenant.tenantId) last.studentUserIds.push(studentUserId);
    else tenants.push({ ...tenant, studentUserIds: [studentUserId] });
  }
  return tenants;
}
