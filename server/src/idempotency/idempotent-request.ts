import { createHash, randomUUID } from 'node:crypto';
import type { Database, Executor } from '../db/database.js';
import { IdempotencyKeyInFlightError, IdempotencyKeyReusedError } from '../errors/index.js';
import { claimKey, completeKey, findKey, releaseKey, type StoredAnswer } from './idempotency.repository.js';

export type { StoredAnswer };

/**
 * A POST that carries an Idempotency-Key: either it runs (its key claimed, its answer stored when
 * it succeeds) or it replays the answer of the first request with that key.
 */
export type Idempotency =
  | {
      kind: 'run';
      /** Stores the answer; inside the request's transaction when there is one, so both commit together. */
      complete(fingerprint: string, answer: StoredAnswer, tx?: Executor): Promise<void>;
      /** Gives the key up (the request failed): a retry runs again. */
      release(): Promise<void>;
    }
  | { kind: 'replay'; fingerprint: string; answer: StoredAnswer };

/** What makes two requests "the same request": method, path and body (parsed, so spacing does not count). */
export const fingerprintOf = (method: string, path: string, body: unknown) =>
  createHash('sha256')
    .update(`${method} ${path}\n${JSON.stringify(body ?? null)}`)
    .digest('base64url');

/**
 * Claims `key` for this request, or finds what holds it: a request still running (409), or a
 * completed one whose answer is replayed. Runs before the request's own transaction begins, so
 * that the claim is visible to every other request at once.
 */
export async function startIdempotent(db: Database, userId: string, key: string): Promise<Idempotency> {
  // A holder that releases the key between our claim and our read lets the next round claim it.
  for (let attempt = 0; attempt < 3; attempt++) {
    const claim = { userId, key, claimId: randomUUID() };
    if (await claimKey(db, userId, key, claim.claimId)) {
      let settled = false;
      return {
        kind: 'run',
        complete: async (fingerprint, answer, tx) => {
          await completeKey(tx ?? db, claim, fingerprint, answer);
          settled = true;
        },
        release: async () => {
          if (settled) return;
          settled = true;
          await releaseKey(db, claim);
        },
      };
    }
    const held = await findKey(db, userId, key);
    if (held?.state === 'in-flight') throw new IdempotencyKeyInFlightError();
    if (held?.state === 'done') return { kind: 'replay', fingerprint: held.fingerprint, answer: held.answer };
  }
  throw new IdempotencyKeyInFlightError();
}

/** The first answer, for a request that is the same as the first; a different one is refused. */
export function replayedAnswer(
  idempotency: { fingerprint: string; answer: StoredAnswer },
  fingerprint: string,
) {
  if (idempotency.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError();
  return idempotency.answer;
}
