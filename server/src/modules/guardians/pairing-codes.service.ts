import { PAIRING_CODE_DAYS, PAIRING_CODES_PER_STUDENT_MAX } from '@tms/contract';
import type { CodeKeys } from '../../auth/code-keys.js';
import { newRedeemableCode } from '../../auth/redeemable-code.js';
import type { PairingCodeRow } from '../../db/schema.js';
import { StudentNotFoundError } from '../../errors/index.js';
import { pairingCodeMakerProblem } from '../../rules/guardian-rules.js';
import type { TenantWrite } from '../shared/tenant-write.js';
import { recordCodeEvent } from './guardian-events.js';
import { isStudentOf } from './guardian-links.repository.js';
import { insertCode, liveCodesOf, revokeCodes } from './pairing-codes.repository.js';

/** Codes are looked up by their keyed hash under this purpose: a join code never redeems as one. */
export const PAIRING_PURPOSE = 'pairing';

/**
 * A new pairing code for the student, in the transaction that locks the tenant. The student keeps
 * at most PAIRING_CODES_PER_STUDENT_MAX live codes: making one more revokes the oldest, so a code
 * handed out long ago and forgotten does not stay redeemable because newer ones were made.
 */
export async function createPairingCode(
  { tx, access, caller, audit }: TenantWrite,
  codeKeys: CodeKeys,
  studentUserId: string,
): Promise<{ row: PairingCodeRow; code: string }> {
  const refused = pairingCodeMakerProblem(access, caller.userId, studentUserId);
  if (refused) throw refused;
  const { tenantId } = access;
  if (!(await isStudentOf(tx, tenantId, studentUserId))) throw new StudentNotFoundError(studentUserId);
  const live = await liveCodesOf(tx, tenantId, studentUserId);
  const surplus = live.slice(0, Math.max(0, live.length - (PAIRING_CODES_PER_STUDENT_MAX - 1)));
  const revoked = await revokeCodes(
    tx,
    tenantId,
    surplus.map((row) => row.id),
  );
  for (const after of revoked) {
    const before = surplus.find((row) => row.id === after.id) ?? null;
    await recordCodeEvent(tx, audit, 'pairing_code.revoked', before, after);
  }
  const code = newRedeemableCode();
  const row = await insertCode(tx, {
    tenantId,
    studentUserId,
    codeHash: codeKeys.lookupHash(PAIRING_PURPOSE, code),
    createdByUserId: caller.userId,
    days: PAIRING_CODE_DAYS,
  });
  await recordCodeEvent(tx, audit, 'pairing_code.created', null, row);
  return { row, code };
}
