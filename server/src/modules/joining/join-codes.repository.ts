import type { JoinCodeStatus, Role } from '@tms/contract';
import { and, asc, eq, gt, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import {
  type CallerRead,
  type CallerScope,
  callerReadOf,
  selectWithCaller,
} from '../../access/caller-read.repository.js';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { joinCodes } from '../../db/schema.js';

/**
 * A code's status as the API shows it, read at the transaction's time: nothing needs a job to
 * expire a code or mark it used up.
 */
export const joinCodeStatus = sql<JoinCodeStatus>`(case
  when ${joinCodes.revokedAt} is not null then 'REVOKED'
  when ${joinCodes.expiresAt} <= now() then 'EXPIRED'
  when ${joinCodes.maxUses} is not null and ${joinCodes.uses} >= ${joinCodes.maxUses} then 'USED_UP'
  else 'ACTIVE' end)`;

export type JoinCodeView = {
  id: string;
  tenantId: string;
  sealedCode: string;
  role: Role;
  expiresAt: Date;
  maxUses: number | null;
  uses: number;
  requiresApproval: boolean;
  status: JoinCodeStatus;
  createdBy: string | null;
  createdAt: Date;
};

export const joinCodeColumns = {
  id: joinCodes.id,
  tenantId: joinCodes.tenantId,
  sealedCode: joinCodes.sealedCode,
  role: joinCodes.role,
  expiresAt: joinCodes.expiresAt,
  maxUses: joinCodes.maxUses,
  uses: joinCodes.uses,
  requiresApproval: joinCodes.requiresApproval,
  status: joinCodeStatus.as('status'),
  createdBy: joinCodes.createdBy,
  createdAt: joinCodes.createdAt,
};

/**
 * What a TEACHER may see of a tenant's codes and requests: those for STUDENT, the only role a
 * TEACHER may hand out. ADMINs, OWNERs and super administrators see all.
 */
export const manageableBy = (caller: CallerScope, role: SQLWrapper) =>
  sql`(${caller.isSuperAdmin} or ${caller.tenantRole} in ('OWNER', 'ADMIN') or ${role} = 'STUDENT')`;

function joinCodesPage(db: Executor, after: boolean) {
  const read = {
    rule: 'tenantTeacher',
    tenantId: sql.placeholder('tenantId'),
    orderBy: (item: Record<string, SQL>) => [asc(item.id as SQL)],
  } as const;
  return selectWithCaller(db, read, (gate, caller) =>
    db
      .select(joinCodeColumns)
      .from(joinCodes)
      .where(
        and(
          gate,
          eq(joinCodes.tenantId, sql.placeholder('tenantId')),
          manageableBy(caller, joinCodes.role),
          after ? gt(joinCodes.id, sql.placeholder('afterId')) : undefined,
        ),
      )
      .orderBy(asc(joinCodes.id))
      .limit(sql.placeholder('limit')),
  );
}

const PAGES = {
  first: preparedPer((db) => joinCodesPage(db, false).prepare('join_codes_page_first')),
  next: preparedPer((db) => joinCodesPage(db, true).prepare('join_codes_page_next')),
};

/** The caller (with its role in the tenant) and a page of the codes it may manage, in one statement. */
export async function listJoinCodesAs(
  db: Executor,
  subject: string,
  page: { tenantId: string; afterId?: string; limit: number },
): Promise<CallerRead<JoinCodeView>> {
  const statement = (page.afterId === undefined ? PAGES.first : PAGES.next)(db);
  return callerReadOf(await statement.execute({ subject, ...page }));
}

/** A new code; undefined in the (astronomically rare) case its characters are another code's. */
export async function insertJoinCode(
  db: Executor,
  code: {
    tenantId: string;
    lookupHash: string;
    sealedCode: string;
    role: Role;
    expiresAt: Date;
    maxUses: number | null;
    requiresApproval: boolean;
    createdBy: string;
  },
): Promise<JoinCodeView | undefined> {
  const [row] = await db
    .insert(joinCodes)
    .values({ id: uuidv7(), ...code })
    .onConflictDoNothing({ target: joinCodes.lookupHash })
    .returning(joinCodeColumns);
  return row;
}

/** The code, within its tenant (the scope rule). */
export async function findJoinCodeInTenant(
  db: Executor,
  tenantId: string,
  joinCodeId: string,
): Promise<JoinCodeView | undefined> {
  const [row] = await db
    .select(joinCodeColumns)
    .from(joinCodes)
    .where(and(eq(joinCodes.tenantId, tenantId), eq(joinCodes.id, joinCodeId)));
  return row;
}

/** New characters for a code; undefined when they are another code's (then draw again). */
export async function rekeyJoinCode(
  db: Executor,
  tenantId: string,
  joinCodeId: string,
  key: { lookupHash: string; sealedCode: string },
): Promise<JoinCodeView | undefined> {
  const [row] = await db
    .update(joinCodes)
    .set({ ...key, updatedAt: sql`now()` })
    .where(
      and(
        eq(joinCodes.tenantId, tenantId),
        eq(joinCodes.id, joinCodeId),
        sql`not exists (select 1 from ${joinCodes} as "other" where "other"."lookup_hash" = ${key.lookupHash})`,
      ),
    )
    .returning(joinCodeColumns);
  return row;
}

export async function revokeJoinCode(
  db: Executor,
  tenantId: string,
  joinCodeId: string,
): Promise<JoinCodeView> {
  const [row] = await db
    .update(joinCodes)
    .set({ revokedAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(joinCodes.tenantId, tenantId), eq(joinCodes.id, joinCodeId)))
    .returning(joinCodeColumns);
  if (!row) throw new Error(`join code ${joinCodeId} vanished under its tenant's lock`);
  return row;
}

/**
 * Which tenant a typed code belongs to, looked up by its HMAC across every tenant: a person joining
 * names no tenant. The tenant is then locked and the code read again within it.
 */
export async function tenantOfJoinCode(db: Executor, lookupHash: string): Promise<string | undefined> {
  const [row] = await db
    .select({ tenantId: joinCodes.tenantId })
    .from(joinCodes)
    .where(eq(joinCodes.lookupHash, lookupHash));
  return row?.tenantId;
}

/** The code by its HMAC, within the tenant locked for it. */
export async function findJoinCodeByHash(
  db: Executor,
  tenantId: string,
  lookupHash: string,
): Promise<JoinCodeView | undefined> {
  const [row] = await db
    .select(joinCodeColumns)
    .from(joinCodes)
    .where(and(eq(joinCodes.tenantId, tenantId), eq(joinCodes.lookupHash, lookupHash)));
  return row;
}

/**
 * One more use, if the code has one left: the condition is in the statement, so even a writer that
 * forgot the tenant's lock could not let in more than `max_uses` people.
 */
export async function spendJoinCodeUse(db: Executor, tenantId: string, joinCodeId: string): Promise<boolean> {
  const rows = await db
    .update(joinCodes)
    .set({ uses: sql`${joinCodes.uses} + 1`, updatedAt: sql`now()` })
    .where(
      and(
        eq(joinCodes.tenantId, tenantId),
        eq(joinCodes.id, joinCodeId),
        sql`(${joinCodes.maxUses} is null or ${joinCodes.uses} < ${joinCodes.maxUses})`,
      ),
    )
    .returning({ id: joinCodes.id });
  return rows.length > 0;
}
