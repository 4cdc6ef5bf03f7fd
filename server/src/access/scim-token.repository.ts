import { and, eq, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { Executor } from '../db/database.js';
import { preparedPer } from '../db/prepared.js';
import { scimTokens, tenants } from '../db/schema.js';

/** The directory a SCIM request comes from: its token, and the tenant that token opens. */
export type ScimCaller = { tokenId: string; tenantId: string };

const minute = sql`date_trunc('minute', now())`;

/*
 * The token's check, in one statement: a token revoked (its row gone), expired, or of a deleted
 * tenant opens nothing. `last_used_at` is moved on at most once a minute: a sync's thousands of
 * requests would otherwise each write the row.
 */
const tokenInUse = preparedPer((db) => {
  const found = db.$with('found').as(
    db
      .select({ tokenId: scimTokens.id, tenantId: scimTokens.tenantId, lastUsedAt: scimTokens.lastUsedAt })
      .from(scimTokens)
      .innerJoin(
        tenants,
        and(
          eq(tenants.id, sql.placeholder('tenantId')),
          eq(tenants.id, scimTokens.tenantId),
          isNull(tenants.deletedAt),
        ),
      )
      .where(
        and(
          // The URL's tenant: a token of another tenant is not found, as any unknown one.
          eq(scimTokens.tenantId, sql.placeholder('tenantId')),
          eq(scimTokens.tokenHash, sql.placeholder('tokenHash')),
          or(isNull(scimTokens.expiresAt), gt(scimTokens.expiresAt, sql`now()`)),
        ),
      ),
  );
  const touched = db.$with('touched').as(
    db
      .update(scimTokens)
      .set({ lastUsedAt: minute })
      .where(
        and(
          eq(scimTokens.tenantId, sql.placeholder('tenantId')),
          inArray(scimTokens.id, db.select({ id: found.tokenId }).from(found)),
          or(isNull(scimTokens.lastUsedAt), lt(scimTokens.lastUsedAt, minute)),
        ),
      )
      .returning({ id: scimTokens.id }),
  );
  return db
    .with(found, touched)
    .select({ tokenId: found.tokenId, tenantId: found.tenantId })
    .from(found)
    .prepare('scim_token_in_use');
});

/** The directory whose token this is, when it is a live token of this tenant. */
export async function findScimCaller(
  db: Executor,
  tenantId: string,
  tokenHash: string,
): Promise<ScimCaller | undefined> {
  const [row] = await tokenInUse(db).execute({ tenantId, tokenHash });
  return row;
}
