import type { RedeemPairingCodeBody } from '@tms/contract';
import { lockTenantForWrite } from '../../access/access.repository.js';
import type { CodeKeys } from '../../auth/code-keys.js';
import type { Database } from '../../db/database.js';
import type { GuardianLinkRow } from '../../db/schema.js';
import { PairingCodeNotFoundError } from '../../errors/index.js';
import type { CodeTries } from '../../rate-limit/code-tries.js';
import type { AuditContext } from '../audit/audit-context.js';
import { isStudentOf } from './guardian-links.repository.js';
import { linkGuardian } from './link-guardian.js';
import { findLiveCode, markCodeUsed, tenantOfCode } from './pairing-codes.repository.js';
import { PAIRING_PURPOSE } from './pairing-codes.service.js';

export type Redeemer = { audit: AuditContext; address: string };

/**
 * The caller becomes an ACTIVE guardian of the code's student. Every try spends the caller's and
 * the address's budget first, found or not: a code is a secret to guess. A wrong, used, revoked or
 * expired code, or one whose student has left, is one answer (PAIRING_CODE_NOT_FOUND), so a
 * guesser learns nothing from which.
 *
 * The code names its tenant only in its row: found by hash, then the tenant is locked as every
 * writer of its links does, and the code read again under the lock. Two redeemers of one code then
 * run one after the other, and the second finds it used.
 */
export async function redeemPairingCode(
  db: Database,
  deps: { codeKeys: CodeKeys; codeTries: CodeTries },
  redeemer: Redeemer,
  body: RedeemPairingCodeBody,
): Promise<GuardianLinkRow> {
  const { audit } = redeemer;
  const subject = audit.actor.subject;
  if (subject === null) throw new Error('a pairing code redeemed by nobody');
  deps.codeTries.spend(subject, redeemer.address);
  const codeHash = deps.codeKeys.lookupHashOfTyped(PAIRING_PURPOSE, body.code);
  if (codeHash === undefined) throw new PairingCodeNotFoundError();
  return db.transaction(async (tx) => {
    const tenantId = await tenantOfCode(tx, codeHash);
    if (tenantId === undefined) throw new PairingCodeNotFoundError();
    const { user, tenant } = await lockTenantForWrite(tx, tenantId, subject);
    if (!tenant.exists || !user) throw new PairingCodeNotFoundError();
    const pairing = await findLiveCode(tx, tenantId, codeHash);
    if (!pairing || !(await isStudentOf(tx, tenantId, pairing.studentUserId)))
      throw new PairingCodeNotFoundError();
    const pair = { tenantId, studentUserId: pairing.studentUserId, guardianUserId: user.id };
    const link = await linkGuardian(tx, audit, pair, {
      relationship: body.relationship,
      source: 'PAIRING_CODE',
    });
    await markCodeUsed(tx, tenantId, pairing.id);
    return link;
  });
}
