import { and, asc, eq, sql } from 'drizzle-orm';
import { type CallerRead, callerReadOf, selectWithCaller } from '../../access/caller-read.repository.js';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { scimTokens } from '../../db/schema.js';

/** A token as kept: never the secret, only its hash, which no read returns. */
const tokenColumns = {
  id: scimTokens.id,
  tenantId: scimTokens.tenantId,
  description: scimTokens.description,
  createdAt: scimTokens.createdAt,
  expiresAt: scimTokens.expiresAt,
  lastUsedAt: scimTokens.lastUsedAt,
};
export type ScimTokenRow = {
  id: string;
  tenantId: string;
  description: string | null;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
};

export async function insertScimToken(
  db: Executor,
  token: {
    id: string;
    tenantId: string;
    tokenHash: string;
    description: string | null;
    expiresAt: Date | null;
  },
): Promise<ScimTokenRow> {
  const [row] = await db.insert(scimTokens).values(token).returning(tokenColumns);
  if (!row) throw new Error('insert into scim_tokens returned no row');
  return row;
}

const TENANT_READ = { rule: 'tenantAdmin', tenantId: sql.placeholder('tenantId') } as const;

const tokensWithCaller = preparedPer((db) =>
  selectWithCaller(db, { ...TENANT_READ, orderBy: (item) => [asc(item.id as never)] }, (gate) =>
    db
      .select(tokenColumns)
      .from(scimTokens)
      .where(and(gate, eq(scimTokens.tenantId, sql.placeholder('tenantId'))))
      .orderBy(asc(scimTokens.id)),
  ).prepare('scim_tokens_with_caller'),
);

/** The caller (with its role in the tenant) and the tenant's live tokens, in one statement. */
export async function listScimTokensAs(
  db: Executor,
  subject: string,
  tenantId: string,
): Promise<CallerRead<ScimTokenRow>> {
  return callerReadOf(await tokensWithCaller(db).execute({ subject, tenantId }));
}

const deleteToken = preparedPer((db) =>
  db
    .delete(scimTokens)
    .where(
      and(
        eq(scimTokens.tenantId, sql.placeholder('tenantId')),
        eq(scimTokens.id, sql.placeholder('scimTokenId')),
      ),
    )
    .returning(tokenColumns)
    .prepare('delete_scim_token'),
);

/** Deletes the token, so that its next request is refused; undefined when the tenant has none such. */
export async function deleteScimToken(
  db: Executor,
  tenantId: string,
  scimTokenId: string,
): Promise<ScimTokenRow | undefined> {
  const [row] = await deleteToken(db).execute({ tenantId, scimTokenId });
  return row;
}
