import { and, asc, gt, or, type SQL, sql } from 'drizzle-orm';
import type { Transaction } from '../../db/database.js';
import { auditEvents, idempotencyKeys } from '../../db/schema.js';
import { idsIn, textMatchesAny } from './erasure.repository.js';

/*
 * The erasure's rewrite of stored JSON that showed the person: the audit trail's before/after and
 * actor subject, and the answers kept for idempotent replay. Which rows may concern the person is
 * decided here, broadly, in SQL; what to change in them is decided in TypeScript
 * (user-pseudonym.ts), which knows the DTOs.
 */

const NIL = '00000000-0000-0000-0000-000000000000';

/**
 * The memberships and invitations the trail says were the person's, beyond those still in the
 * database: memberships once theirs (their events name the user), invitations they accepted.
 */
export async function personsRecordsInTrail(
  tx: Transaction,
  userId: string,
): Promise<{ membershipIds: string[]; invitationIds: string[] }> {
  const e = auditEvents;
  const rows = await tx
    .selectDistinct({ targetType: e.targetType, targetId: e.targetId })
    .from(e)
    .where(
      or(
        sql`(${e.targetType} = 'membership' and (${e.before}->>'userId' = ${userId} or ${e.after}->>'userId' = ${userId}))`,
        sql`(${e.targetType} = 'invitation' and ${e.after}->>'acceptedUserId' = ${userId})`,
      ),
    );
  const of = (type: string) => rows.filter((row) => row.targetType === type).map((row) => row.targetId);
  return { membershipIds: of('membership'), invitationIds: of('invitation') };
}

/**
 * The trail is append-only (migration 0007) except in a transaction that says it maintains it;
 * the setting ends with the transaction, and is turned off as soon as the rewrite is done.
 */
export async function setAuditMaintenance(tx: Transaction, on: boolean): Promise<void> {
  await tx.execute(
    on ? sql`set local app.audit_maintenance = 'on'` : sql`set local app.audit_maintenance = 'off'`,
  );
}

/** The person's own changes keep their (opaque) user id, and lose the subject that named them. */
export async function forgetActorSubject(tx: Transaction, userId: string): Promise<void> {
  await tx.execute(sql`
    update audit_events set actor_subject = null
    where actor_user_id = ${userId}::uuid and actor_subject is not null`);
}

/** Where the person may show in stored JSON: records named by id, or text that contains them. */
export type Mentions = { targetIds: string[]; patterns: string[] };

const mentioning = (m: Mentions): SQL =>
  or(
    sql`${auditEvents.targetId} in ${idsIn(m.targetIds)}`,
    textMatchesAny(sql`${auditEvents.before}::text`, m.patterns),
    textMatchesAny(sql`${auditEvents.after}::text`, m.patterns),
  ) as SQL;

export type EventData = { id: string; before: unknown; after: unknown };

/** A batch of the events that may show the person, in id order after `afterId`. */
export async function eventsMentioning(
  tx: Transaction,
  mentions: Mentions,
  afterId: string | undefined,
  limit: number,
): Promise<EventData[]> {
  const e = auditEvents;
  return tx
    .select({ id: e.id, before: e.before, after: e.after })
    .from(e)
    .where(and(gt(e.id, afterId ?? NIL), mentioning(mentions)))
    .orderBy(asc(e.id))
    .limit(limit);
}

/** Writes rewritten before/after; the trigger lets nothing else of an event change. */
export async function rewriteEvents(tx: Transaction, rows: EventData[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.execute(sql`
    update audit_events as e set before = r.before, after = r.after
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(id uuid, before jsonb, after jsonb)
    where e.id = r.id`);
}

export type StoredAnswer = { userId: string; key: string; body: unknown };

/** A batch of other callers' stored answers (for idempotent replay) that may show the person. */
export async function storedAnswersMentioning(
  tx: Transaction,
  patterns: string[],
  after: { userId: string; key: string } | undefined,
  limit: number,
): Promise<StoredAnswer[]> {
  const k = idempotencyKeys;
  return tx
    .select({ userId: k.userId, key: k.key, body: k.responseBody })
    .from(k)
    .where(
      and(
        after ? sql`(${k.userId}, ${k.key}) > (${after.userId}::uuid, ${after.key})` : undefined,
        textMatchesAny(sql`${k.responseBody}::text`, patterns),
      ),
    )
    .orderBy(asc(k.userId), asc(k.key))
    .limit(limit);
}

/** Replays then answer the pseudonym: the change the answer reports stays what it was. */
export async function rewriteStoredAnswers(tx: Transaction, rows: StoredAnswer[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.execute(sql`
    update idempotency_keys as k set response_body = r.body
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r("userId" uuid, key text, body jsonb)
    where k.user_id = r."userId" and k.key = r.key`);
}
