import type { Transaction } from '../../db/database.js';
import type { AuditContext } from '../audit/audit-context.js';
import { recordLinkEvent } from './guardian-events.js';
import { deleteLinksOfPerson } from './guardian-links.repository.js';
import { deleteCodesOfStudent } from './pairing-codes.repository.js';

/**
 * An erased person's guardian links go, as guardian and as student, in every tenant, each with
 * `guardian_link.removed`; so do the pairing codes made for them. A link's record holds only ids
 * (opaque once the user is erased, as the trail's other records are): nothing in the link events
 * names the person, so the trail's rewrite has nothing of theirs to find there. Runs in the
 * erasure's transaction, with the tenants of the links locked.
 */
export async function removeGuardianLinksOf(
  tx: Transaction,
  context: AuditContext,
  userId: string,
): Promise<number> {
  const removed = await deleteLinksOfPerson(tx, userId);
  for (const link of removed) await recordLinkEvent(tx, context, 'guardian_link.removed', link, null);
  await deleteCodesOfStudent(tx, userId);
  return removed.length;
}
