import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { Executor } from '../db/database.js';
import { idempotencyKeys } from '../db/schema.js';

export type StoredAnswer = { status: number; body: unknown; headers: Record<string, string> };
export type KeyState =
  | { state: 'in-flight' }
  | { state: 'done'; fingerprint: string; answer: StoredAnswer }
  | undefined;

/** How long a key replays its answer. */
const RETENTION = sql`interval '24 hours'`;
/**
 * A claim this old whose request never completed nor released it belonged to a process that died
 * mid-request: the next request with the key takes it over. Far above any request's deadline.
 */
const ABANDONED = sql`interval '60 seconds'`;

/**
 * Claims the key for this request, in one statement: a new key, an expired one, or an abandoned
 * claim. True when the claim is ours; otherwise another request holds or completed the key.
 */
export async function claimKey(db: Executor, userId: string, key: string, claimId: string): Promise<boolean> {
  const rows = await db
    .insert(idempotencyKeys)
    .values({ userId, key, claimId, expiresAt: sql`now() + ${RETENTION}` })
    .onConflictDoUpdate({
      target: [idempotencyKeys.userId, idempotencyKeys.key],
      set: {
        claimId,
        claimedAt: sql`now()`,
        completedAt: null,
        fingerprint: null,
        responseStatus: null,
        responseBody: null,
        responseHeaders: null,
        expiresAt: sql`now() + ${RETENTION}`,
      },
      setWhere: or(
        and(isNull(idempotencyKeys.completedAt), lt(idempotencyKeys.claimedAt, sql`now() - ${ABANDONED}`)),
        lt(idempotencyKeys.expiresAt, sql`now()`),
      ),
    })
    .returning({ claimId: idempotencyKeys.claimId });
  return rows[0]?.claimId === claimId;
}

export async function findKey(db: Executor, userId: string, key: string): Promise<KeyState> {
  const [row] = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, key)));
  if (!row) return undefined;
  if (!row.completedAt || row.fingerprint === null || row.responseStatus === null)
    return { state: 'in-flight' };
  return {
    state: 'done',
    fingerprint: row.fingerprint,
    answer: { status: row.responseStatus, body: row.responseBody, headers: row.responseHeaders ?? {} },
  };
}

const ours = (userId: string, key: string, claimId: string) =>
  and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, key), eq(idempotencyKeys.claimId, claimId));

/** Stores the answer under our claim: run in the request's transaction, it commits with the change. */
export async function completeKey(
  db: Executor,
  claim: { userId: string; key: string; claimId: string },
  fingerprint: string,
  answer: StoredAnswer,
): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set({
      completedAt: sql`now()`,
      fingerprint,
      responseStatus: answer.status,
      responseBody: answer.body,
      responseHeaders: answer.headers,
      expiresAt: sql`now() + ${RETENTION}`,
    })
    .where(ours(claim.userId, claim.key, claim.claimId));
}

/** Gives the key up when our request ended without an answer to keep (an error): a retry runs again. */
export async function releaseKey(db: Executor, claim: { userId: string; key: string; claimId: string }) {
  await db
    .delete(idempotencyKeys)
    .where(and(ours(claim.userId, claim.key, claim.claimId), isNull(idempotencyKeys.completedAt)));
}

export async function deleteExpiredKeys(db: Executor): Promise<void> {
  await db.delete(idempotencyKeys).where(lt(idempotencyKeys.expiresAt, sql`now()`));
}
