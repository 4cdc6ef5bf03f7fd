import type { JoinCode, JoinRequest, MyJoinRequest } from '@tms/contract';
import { displayRedeemableCode } from '../../auth/redeemable-code.js';
import type { JoinCodeView } from './join-codes.repository.js';
import type { JoinRequestView, MyJoinRequestView } from './join-requests.repository.js';

export const JOIN_PURPOSE = 'join';

/** Opens a sealed code; undefined when it was sealed under another CODE_SECRET. */
export type CodeOpener = (sealed: string) => string | undefined;

/**
 * A code as the API shows it to those who may manage it. The audit trail and the webhooks get it
 * without `code` (null): they reach people who may not redeem it.
 */
export const toJoinCodeDto = (row: JoinCodeView, open?: CodeOpener): JoinCode => {
  const plain = row.status === 'REVOKED' || !open ? undefined : open(row.sealedCode);
  return {
    joinCodeId: row.id,
    tenantId: row.tenantId,
    code: plain === undefined ? null : displayRedeemableCode(plain),
    role: row.role === 'TEACHER' ? 'TEACHER' : 'STUDENT',
    expiresAt: row.expiresAt.toISOString(),
    maxUses: row.maxUses,
    uses: row.uses,
    requiresApproval: row.requiresApproval,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    createdBy: row.createdBy,
  };
};

export const toJoinRequestDto = (row: JoinRequestView): JoinRequest => ({
  joinRequestId: row.id,
  tenantId: row.tenantId,
  userId: row.userId,
  email: row.email,
  displayName: row.displayName,
  joinCodeId: row.joinCodeId,
  domainId: row.domainId,
  role: row.role === 'TEACHER' ? 'TEACHER' : 'STUDENT',
  status: row.status,
  expiresAt: row.expiresAt.toISOString(),
  decidedBy: row.decidedBy,
  decidedAt: row.decidedAt === null ? null : row.decidedAt.toISOString(),
  createdAt: row.createdAt.toISOString(),
});

export const toMyJoinRequestDto = (row: MyJoinRequestView): MyJoinRequest => ({
  ...toJoinRequestDto(row),
  tenantSlug: row.tenantSlug,
  tenantName: row.tenantName,
});
