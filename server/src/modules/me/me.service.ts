import { type Me, ROLE_LEVEL } from '@tms/contract';
import { type Requester, readAsCaller } from '../../access/read-as-caller.js';
import type { Database } from '../../db/database.js';
import { findCallerWithMemberships } from './me.repository.js';

type Item = Awaited<ReturnType<typeof findCallerWithMemberships>>['items'][number];

export async function describeCaller(db: Database, requester: Requester): Promise<Me> {
  const { caller, items } = await readAsCaller(db, requester, (subject) =>
    findCallerWithMemberships(db, subject),
  );
  const memberships: Me['memberships'] = [];
  const wards: Item[] = [];
  for (const item of items) {
    if (item.kind === 'ward') {
      wards.push(item);
      continue;
    }
    const { kind: _kind, studentUserId: _student, ...m } = item;
    memberships.push({
      ...m,
      roleLevel: ROLE_LEVEL[m.role],
      startsAt: m.startsAt?.toISOString() ?? null,
      endsAt: m.endsAt?.toISOString() ?? null,
    });
  }
  return {
    user: {
      userId: caller.userId,
      email: caller.email,
      displayName: caller.displayName,
      isSuperAdmin: caller.isSuperAdmin,
    },
    memberships,
    guardianOf: byTenant(wards),
  };
}

/** The caller's guardianships, one entry per tenant (the rows come ordered by tenant, then student). */
function byTenant(wards: Item[]): Me['guardianOf'] {
  const tenants: Me['guardianOf'] = [];
  for (const { tenantId, tenantSlug, tenantName, studentUserId } of wards) {
    if (studentUserId === null) continue;
    const last = tenants.at(-1);
    if (last?.tenantId === tenantId) last.studentUserIds.push(studentUserId);
    else tenants.push({ tenantId, tenantSlug, tenantName, studentUserIds: [studentUserId] });
  }
  return tenants;
}
