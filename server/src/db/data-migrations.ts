import { and, asc, gt, isNotNull, isNull, sql } from 'drizzle-orm';
import { canonicalEmail } from '../identity/email-address.js';
import type { Database } from './database.js';
import { users } from './schema.js';

const BATCH = 1000;

/**
 * Data changes that SQL alone cannot make, run after the schema migrations, under the same lock.
 * Each is a no-op once done, so running them at every start costs one indexed query.
 */
export async function migrateData(db: Database): Promise<void> {
  await fillCanonicalEmails(db);
}

/**
 * Rows from before `email_canonical` existed get theirs (IDNA is not available in SQL). An address
 * that is not valid, or whose canonical form another user already holds, is left without one: it
 * stays displayed but claims nothing, the safe side for an identity key.
 */
async function fillCanonicalEmails(db: Database): Promise<void> {
  let afterId = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const batch = await db
      .select({ id: users.id, email: users.email })
      .from(users)
      .where(and(isNotNull(users.email), isNull(users.emailCanonical), gt(users.id, afterId)))
      .orderBy(asc(users.id))
      .limit(BATCH);
    if (batch.length === 0) return;
    afterId = batch[batch.length - 1]?.id ?? afterId;
    const pairs = batch.flatMap(({ id, email }) => {
      const canonical = email === null ? undefined : canonicalEmail(email);
      return canonical ? [{ id, canonical }] : [];
    });
    if (pairs.length === 0) continue;
    // One JSON parameter rather than arrays: PGlite mis-frames array parameters under concurrency.
    await db.execute(sql`
      update users set email_canonical = pick.canonical
      from (
        select distinct on (canonical) id, canonical
        from json_to_recordset(${JSON.stringify(pairs)}::json) as p(id uuid, canonical text)
        order by canonical, id
      ) as pick
      where users.id = pick.id
        and not exists (select 1 from users taken where taken.email_canonical = pick.canonical)`);
  }
}
