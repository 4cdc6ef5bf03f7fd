import { isTenantRule, ROLE_LEVEL, ROLES, type Role, type RouteAccess } from '@tms/contract';
import { and, eq, inArray, isNull, type Placeholder, type SQL, type Subquery, sql } from 'drizzle-orm';
import type { Executor } from '../db/database.js';
import { preparedPer } from '../db/prepared.js';
import { tenantMemberships, tenants, users } from '../db/schema.js';
import type { KnownUser } from '../identity/identify.js';
import { isActive } from '../rules/membership-status.sql.js';
import { NO_ROLE_LEVEL } from '../rules/policy.js';
import { RULE_LEVEL } from './decide-access.js';

/** The caller's user row, with what a tenant route decides on: whether the tenant exists, the role there. */
export type CallerRow = KnownUser & { tenantExists: boolean; tenantRole: Role | null };

/** The rows of a read that looked the caller up in its own statement: no caller row, no such user. */
export type CallerRead<T> = { caller: CallerRow | undefined; items: T[] };

/**
 * The caller, by the token's subject, as the first part (a CTE) of a read's one statement. With a
 * tenant, the tenant's existence and the caller's role there come along: all a decision needs.
 */
function callerScope(db: Executor, tenantId: Placeholder | undefined) {
  const scoped = db
    .select({
      id: users.id,
      email: users.email,
      emailCanonical: users.emailCanonical,
      displayName: users.displayName,
      isSuperAdmin: users.isSuperAdmin,
      tenantExists: (tenantId ? sql<boolean>`${tenants.id} is not null` : sql<boolean>`false`).as(
        'tenant_exists',
      ),
      tenantRole: (tenantId ? sql<Role | null>`${tenantMemberships.role}` : sql<Role | null>`null`).as(
        'tenant_role',
      ),
    })
    .from(users);
  const joined = tenantId
    ? scoped
        // A deleted tenant is a missing one, and a membership that is not ACTIVE no membership.
        .leftJoin(tenants, and(eq(tenants.id, tenantId), isNull(tenants.deletedAt)))
        .leftJoin(
          tenantMemberships,
          and(
            eq(tenantMemberships.tenantId, tenants.id),
            eq(tenantMemberships.userId, users.id),
            isActive(tenantMemberships),
          ),
        )
    : scoped;
  return db.$with('caller').as(joined.where(eq(users.subject, sql.placeholder('subject'))));
}

export type CallerScope = ReturnType<typeof callerScope>;

const callerFields = (caller: CallerScope) => ({
  id: caller.id,
  email: caller.email,
  emailCanonical: caller.emailCanonical,
  displayName: caller.displayName,
  isSuperAdmin: caller.isSuperAdmin,
  tenantExists: caller.tenantExists,
  tenantRole: caller.tenantRole,
});

/**
 * A gate on the data part of the statement, from the route's rule: a caller who will be refused
 * reads nothing. It is not the decision: decideAccess decides, on the facts read with the caller,
 * and answers why; this only keeps the data from being read for nothing (or timed by a stranger).
 */
function mayRead(caller: CallerScope, rule: RouteAccess): SQL | undefined {
  if (rule === 'superAdmin') return sql`${caller.isSuperAdmin}`;
  // The roles the rule lets in, from the levels decideAccess decides on (a rule open to anyone signed in gates nothing).
  if (!isTenantRule(rule) || RULE_LEVEL[rule] === NO_ROLE_LEVEL) return undefined;
  const roles = ROLES.filter((role) => ROLE_LEVEL[role] >= RULE_LEVEL[rule]);
  return sql`((${caller.isSuperAdmin} and ${caller.tenantExists}) or ${inArray(caller.tenantRole, roles)})`;
}

type Row<T> = { caller: CallerRow; item: T | null };

/** The statement, as drizzle runs it: prepared once under a name, or run as built. */
export type CallerStatement<T> = {
  execute(values?: Record<string, unknown>): Promise<Row<T>[]>;
  prepare(name: string): { execute(values?: Record<string, unknown>): Promise<Row<T>[]> };
};

/**
 * One statement: the caller, then the route's data beside it (a lateral join, so the data may use
 * the caller's id and the gate). `data` gets the gate to put in its WHERE and returns its query; a
 * list gives one row per item, each with the caller, or one row without item.
 */
export function selectWithCaller<Q extends PromiseLike<unknown[]> & { as(alias: string): unknown }>(
  db: Executor,
  options: {
    rule: RouteAccess;
    tenantId?: Placeholder;
    /** The data's order, on its own columns: a lateral join's rows are not promised in any order. */
    orderBy?: (item: Record<string, SQL>) => SQL[];
  },
  data: (gate: SQL | undefined, caller: CallerScope) => Q,
): CallerStatement<Awaited<Q>[number]> {
  const caller = callerScope(db, options.tenantId);
  // drizzle types a lateral subquery's selection only when it knows it statically; this one is
  // the data query's own, so its rows are what that query returns.
  const item = data(mayRead(caller, options.rule), caller).as('item') as Subquery<
    'item',
    Record<string, never>
  >;
  const fields: Record<string, SQL> = Object.fromEntries(
    Object.keys(item._.selectedFields).map((key) => [
      key,
      (item as unknown as Record<string, SQL>)[key] as SQL,
    ]),
  );
  const statement = db
    .with(caller)
    .select({
      caller: callerFields(caller),
      item: fields,
    })
    .from(caller)
    .leftJoinLateral(item, sql`true`)
    .orderBy(...(options.orderBy?.(fields) ?? []));
  return statement as unknown as CallerStatement<Awaited<Q>[number]>;
}

/** The rows of such a statement as the caller and its items. */
export function callerReadOf<T>(rows: { caller: CallerRow; item: T | null }[]): CallerRead<T> {
  const items: T[] = [];
  for (const row of rows) if (row.item !== null) items.push(row.item);
  return { caller: rows[0]?.caller, items };
}

const callerAlone = (tenant: boolean) =>
  preparedPer((db) => {
    const caller = callerScope(db, tenant ? sql.placeholder('tenantId') : undefined);
    return db
      .with(caller)
      .select(callerFields(caller))
      .from(caller)
      .prepare(tenant ? 'caller_in_tenant' : 'caller');
  });
const CALLER_ALONE = { inTenant: callerAlone(true), alone: callerAlone(false) };

/**
 * The caller alone, with the tenant's facts when a tenant is named: what a write decides on (after
 * the tenant's lock), and what a read that cannot be built decides on before it answers.
 */
export async function findCaller(
  db: Executor,
  subject: string,
  tenantId: string | undefined,
): Promise<CallerRow | undefined> {
  const query = tenantId === undefined ? CALLER_ALONE.alone : CALLER_ALONE.inTenant;
  const [row] = await query(db).execute({ subject, tenantId });
  return row;
}
