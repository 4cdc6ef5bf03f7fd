import type { Transaction } from '../../db/database.js';
import {
  type EventData,
  eventsMentioning,
  forgetActorSubject,
  type Mentions,
  rewriteEvents,
  rewriteStoredAnswers,
  type StoredAnswer,
  setAuditMaintenance,
  storedAnswersMentioning,
} from './erasure-trail.repository.js';
import { type ErasedPerson, type Pseudonym, pseudonymised } from './pseudonym.js';

/** Rows per statement: an erasure never holds a whole trail in memory. */
const BATCH = 500;

/**
 * Rewrites every stored copy of the person's data, inside the erasure's transaction: the audit
 * trail (before/after, and the subject of the events they made), then the answers other callers
 * keep for idempotent replay. The trail's append-only trigger lets this transaction, and only it,
 * rewrite those three columns; nothing else of an event (its action, target, time, number) moves.
 */
export async function rewritePersonsData(tx: Transaction, person: ErasedPerson, pseudonym: Pseudonym) {
  const mentions: Mentions = {
    targetIds: [...person.membershipIds, ...person.invitationIds, person.userId],
    patterns: patternsOf(person),
  };
  const rewritten = (value: unknown) => pseudonymised(value, person, pseudonym);
  await setAuditMaintenance(tx, true);
  await forgetActorSubject(tx, person.userId);
  let afterId: string | undefined;
  for (;;) {
    const batch = await eventsMentioning(tx, mentions, afterId, BATCH);
    const changed = batch.flatMap((row): EventData[] => {
      const next = { id: row.id, before: rewritten(row.before), after: rewritten(row.after) };
      return sameJson(next, row) ? [] : [next];
    });
    await rewriteEvents(tx, changed);
    afterId = batch.at(-1)?.id;
    if (batch.length < BATCH) break;
  }
  await setAuditMaintenance(tx, false);

  let after: StoredAnswer | undefined;
  for (;;) {
    const batch = await storedAnswersMentioning(tx, mentions.patterns, after, BATCH);
    const changed = batch.flatMap((row): StoredAnswer[] => {
      const next = { ...row, body: rewritten(row.body) };
      return sameJson(next.body, row.body) ? [] : [next];
    });
    await rewriteStoredAnswers(tx, changed);
    after = batch.at(-1);
    if (batch.length < BATCH) break;
  }
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * ILIKE patterns that find, in a row's JSON text, whatever may show the person: their user id,
 * and a JSON string that starts with the local part of their address (`"ann@`; the domain is
 * compared later, in its canonical form, and the case of ASCII letters does not count there).
 */
function patternsOf(person: ErasedPerson): string[] {
  const patterns = [`%${likeEscaped(person.userId)}%`];
  const canonical = person.canonicalEmail;
  if (canonical !== null) {
    const local = canonical.slice(0, canonical.lastIndexOf('@') + 1);
    // As jsonb prints it: quotes and backslashes escaped, as JSON.stringify escapes them.
    patterns.push(`%"${likeEscaped(JSON.stringify(local).slice(1, -1))}%`);
  }
  return patterns;
}

const likeEscaped = (text: string) => text.replace(/[\\%_]/g, '\\$&');
