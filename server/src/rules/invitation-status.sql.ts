import type { InvitationStatus } from '@tms/contract';
import { type AnyColumn, sql } from 'drizzle-orm';

/**
 * An invitation's status as the API shows it (membership and guardian invitations alike): a
 * PENDING row past `expires_at` is EXPIRED. The row keeps PENDING until something needs it changed
 * (a new invitation to the address, a resend), so expiry needs no job; `now()` is the
 * transaction's start, so one transaction sees one answer.
 */
export const shownInvitationStatus = (status: AnyColumn, expiresAt: AnyColumn) =>
  sql<InvitationStatus>`(case when ${status} = 'PENDING' and ${expiresAt} <= now() then 'EXPIRED' else ${status}::text end)`;
