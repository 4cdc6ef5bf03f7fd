import type { GuardianLinkSource, GuardianRelationship } from '@tms/contract';
import type { Transaction } from '../../db/database.js';
import type { GuardianLinkRow } from '../../db/schema.js';
import { GuardianLinkAlreadyExistsError } from '../../errors/index.js';
import { newGuardianProblem } from '../../rules/guardian-rules.js';
import type { AuditContext } from '../audit/audit-context.js';
import { recordLinkEvent } from './guardian-events.js';
import {
  countActiveGuardians,
  findLinkOfPair,
  insertLink,
  reactivateLink,
} from './guardian-links.repository.js';

export type GuardianPair = { tenantId: string; studentUserId: string; guardianUserId: string };

/**
 * The guardian becomes an ACTIVE guardian of the student, by whichever way they came (a pairing
 * code, an invitation), under the tenant's lock: an ACTIVE link of the pair already is
 * GUARDIAN_LINK_ALREADY_EXISTS, a REVOKED one is made ACTIVE again (the one row per pair), and
 * the six-guardian limit and "not their own guardian" are decided before anything is written.
 */
export async function linkGuardian(
  tx: Transaction,
  audit: AuditContext,
  pair: GuardianPair,
  change: { relationship: GuardianRelationship; source: GuardianLinkSource },
): Promise<GuardianLinkRow> {
  const existing = await findLinkOfPair(tx, pair);
  if (existing?.status === 'ACTIVE') throw new GuardianLinkAlreadyExistsError();
  const refused = newGuardianProblem(
    pair.guardianUserId,
    pair.studentUserId,
    await countActiveGuardians(tx, pair.tenantId, pair.studentUserId),
  );
  if (refused) throw refused;
  if (existing) {
    const reactivated = await reactivateLink(tx, pair.tenantId, existing.id, change);
    await recordLinkEvent(tx, audit, 'guardian_link.reactivated', existing, reactivated);
    return reactivated;
  }
  const created = await insertLink(tx, { ...pair, ...change, status: 'ACTIVE' });
  await recordLinkEvent(tx, audit, 'guardian_link.created', null, created);
  return created;
}
