import { and, asc, eq, gt, isNotNull, isNull, sql } from 'drizzle-orm';
import { canonicalEmail } from '../identity/email-address.js';
import type { Database } from './database.js';
import { dataMigrations, users } from './schema.js';

const BATCH = 1000;

/**
 * Data changes that SQL alone cannot make, run after the schema migrations, under the same lock.
 * Each is a no-op once done, so running them at every start costs one indexed query.
 */
export async function migrateData(db: Database): Promise<void> {
  await fillCanonicalEmails(db);
  await once(db, 'canonical-emails-idna-changes-only-case', dropCanonicalEmailsIdnaChanged);
}

/** Runs `migration` unless it ran before; records it in the same transaction as its change. */
async function once(db: Database, name: string, migration: (db: Database) => Promise<void>): Promise<void> {
  const [done] = await db.select().from(dataMigrations).where(eq(dataMigrations.name, name));
  if (done) return;
  await db.transaction(async (tx) => {
    await migration(tx as unknown as Database);
    await tx.insert(dataMigrations).values({ name }).onConflictDoNothing();
  });
}

/**
 * Addresses whose domain IDNA changed in more than case (a zero-width character, a full-width
 * letter) were given the canonical form of another domain before the rule (identity/email-address.ts)
 * refused them: they lose it, and claim nothing any more. Only a non-ASCII address can be one.
 */
async function dropCanonicalEmailsIdnaChanged(db: Database): Promise<void> {
  const rows = await db
    .select({ id: users.id, email: users.email, canonical: users.emailCanonical })
    .from(users)
    .where(and(isNotNull(users.emailCanonical), sql`${users.email} ~ '[^\x01-\x7f]'`));
  const stale = rows.filter((row) => row.email === null || canonicalEmail(row.email) !== row.canonical);
  if (stale.length === 0) return;
  await db.execute(sql`
    update users set email_canonical = null
    where id in (select value::uuid from json_array_elements_text(${JSON.stringify(stale.map((row) => row.id))}::json))`);
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
