import { type CreateJoinCodeBody, JOIN_CODE_DAYS_DEFAULT, type ListJoinCodesQuery } from '@tms/contract';
import { parsedAfterAccess, type Requester, readAsCaller } from '../../access/read-as-caller.js';
import type { CodeKeys } from '../../auth/code-keys.js';
import { newRedeemableCode } from '../../auth/redeemable-code.js';
import type { Database } from '../../db/database.js';
import { JoinCodeNotFoundError, ValidationFailedError } from '../../errors/index.js';
import { decodeCursor, type Page, toPage } from '../../pagination/cursor.js';
import { codeExpiryProblem, codeRoleProblem, defaultCodeExpiry } from '../../rules/join-rules.js';
import { refuse } from '../../rules/problems.js';
import type { TenantWrite } from '../shared/tenant-write.js';
import {
  findJoinCodeInTenant,
  insertJoinCode,
  type JoinCodeView,
  listJoinCodesAs,
  rekeyJoinCode,
  revokeJoinCode,
} from './join-codes.repository.js';
import { JOIN_PURPOSE } from './joining.dto.js';
import { recordJoinCodeEvent } from './joining-events.js';

/** New characters drawn when they are another code's: 27^8 codes, so a second draw is all it ever takes. */
const DRAWS = 5;

const freshKey = (keys: CodeKeys) => {
  const code = newRedeemableCode();
  return { lookupHash: keys.lookupHash(JOIN_PURPOSE, code), sealedCode: keys.seal(JOIN_PURPOSE, code) };
};

export async function createJoinCode(
  { tx, access, audit, caller }: TenantWrite,
  keys: CodeKeys,
  body: Required<Pick<CreateJoinCodeBody, 'role' | 'requiresApproval'>> & CreateJoinCodeBody,
): Promise<JoinCodeView> {
  refuse(codeRoleProblem(access.level, body.role));
  const now = new Date();
  const expiresAt = body.expiresAt
    ? new Date(body.expiresAt)
    : defaultCodeExpiry(now, JOIN_CODE_DAYS_DEFAULT);
  const expiry = codeExpiryProblem(expiresAt, now);
  if (expiry) throw new ValidationFailedError([{ path: 'body.expiresAt', message: expiry }]);
  for (let draw = 0; draw < DRAWS; draw += 1) {
    const created = await insertJoinCode(tx, {
      tenantId: access.tenantId,
      ...freshKey(keys),
      role: body.role,
      expiresAt,
      maxUses: body.maxUses ?? null,
      requiresApproval: body.requiresApproval,
      createdBy: caller.userId,
    });
    if (created) {
      await recordJoinCodeEvent(tx, audit, 'join_code.created', null, created);
      return created;
    }
  }
  throw new Error('no free join code after several draws');
}

export async function listJoinCodesPage(
  db: Database,
  requester: Requester,
  query: ListJoinCodesQuery,
): Promise<Page<JoinCodeView>> {
  const tenantId = requester.tenantId;
  if (tenantId === undefined) throw new Error('a join-code route without a tenant');
  const afterId = await parsedAfterAccess(db, requester, () => decodeCursor(query.cursor));
  const { items } = await readAsCaller(db, requester, (subject) =>
    listJoinCodesAs(db, subject, { tenantId, afterId, limit: query.limit + 1 }),
  );
  return toPage(items, query.limit);
}

/** A live code of the tenant whose role the caller may hand out; a revoked one is gone. */
async function codeToChange({ tx, access }: TenantWrite, joinCodeId: string): Promise<JoinCodeView> {
  const code = await findJoinCodeInTenant(tx, access.tenantId, joinCodeId);
  if (!code || code.status === 'REVOKED') throw new JoinCodeNotFoundError();
  refuse(codeRoleProblem(access.level, code.role));
  return code;
}

/** New characters in the same row: the old ones find nothing from this commit on. */
export async function rotateJoinCode(
  write: TenantWrite,
  keys: CodeKeys,
  joinCodeId: string,
): Promise<JoinCodeView> {
  const before = await codeToChange(write, joinCodeId);
  for (let draw = 0; draw < DRAWS; draw += 1) {
    const after = await rekeyJoinCode(write.tx, write.access.tenantId, joinCodeId, freshKey(keys));
    if (after) {
      await recordJoinCodeEvent(write.tx, write.audit, 'join_code.rotated', before, after);
      return after;
    }
  }
  throw new Error('no free join code after several draws');
}

export async function revokeJoinCodeById(write: TenantWrite, joinCodeId: string): Promise<void> {
  const before = await codeToChange(write, joinCodeId);
  const after = await revokeJoinCode(write.tx, write.access.tenantId, joinCodeId);
  await recordJoinCodeEvent(write.tx, write.audit, 'join_code.revoked', before, after);
}
