import type { DomainMode, Role } from '@tms/contract';
import { and, asc, eq, gt, isNull, type SQL, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { type CallerRead, callerReadOf, selectWithCaller } from '../../access/caller-read.repository.js';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { tenantDomains as d } from '../../db/schema.js';

/* A tenant's mail domains (tenant_domains): read with the caller, changed under the tenant's lock. */

export type DomainView = {
  id: string;
  tenantId: string;
  domain: string;
  mode: DomainMode;
  role: Role;
  includeSubdomains: boolean;
  verifiedAt: Date | null;
  createdAt: Date;
};

const domainColumns = {
  id: d.id,
  tenantId: d.tenantId,
  domain: d.domain,
  mode: d.mode,
  role: d.role,
  includeSubdomains: d.includeSubdomains,
  verifiedAt: d.verifiedAt,
  createdAt: d.createdAt,
};

const TENANT_ADMIN_READ = { rule: 'tenantAdmin', tenantId: sql.placeholder('tenantId') } as const;

function domainsPage(db: Executor, after: boolean) {
  const read = { ...TENANT_ADMIN_READ, orderBy: (item: Record<string, SQL>) => [asc(item.id as SQL)] };
  return selectWithCaller(db, read, (gate) =>
    db
      .select(domainColumns)
      .from(d)
      .where(
        and(
          gate,
          eq(d.tenantId, sql.placeholder('tenantId')),
          after ? gt(d.id, sql.placeholder('afterId')) : undefined,
        ),
      )
      .orderBy(asc(d.id))
      .limit(sql.placeholder('limit')),
  );
}

const PAGES = {
  first: preparedPer((db) => domainsPage(db, false).prepare('tenant_domains_page_first')),
  next: preparedPer((db) => domainsPage(db, true).prepare('tenant_domains_page_next')),
};

/** The caller (with its role in the tenant) and a page of the tenant's domains, in one statement. */
export async function listDomainsAs(
  db: Executor,
  subject: string,
  page: { tenantId: string; afterId?: string; limit: number },
): Promise<CallerRead<DomainView>> {
  const statement = (page.afterId === undefined ? PAGES.first : PAGES.next)(db);
  return callerReadOf(await statement.execute({ subject, ...page }));
}

const domainWithCaller = preparedPer((db) =>
  selectWithCaller(db, TENANT_ADMIN_READ, (gate) =>
    db
      .select(domainColumns)
      .from(d)
      .where(and(gate, eq(d.tenantId, sql.placeholder('tenantId')), eq(d.id, sql.placeholder('domainId'))))
      .limit(1),
  ).prepare('tenant_domain_with_caller'),
);

/** The caller and the domain, within the tenant, in one statement. */
export async function findDomainAs(
  db: Executor,
  subject: string,
  tenantId: string,
  domainId: string,
): Promise<CallerRead<DomainView>> {
  return callerReadOf(await domainWithCaller(db).execute({ subject, tenantId, domainId }));
}

/**
 * A new domain, verified already when `verifiedBy` is given. Undefined when the tenant has the
 * domain already, or (verified) when another tenant verified it: the unique indexes decide, so two
 * tenants racing cannot both hold it.
 */
export async function insertDomain(
  db: Executor,
  domain: {
    tenantId: string;
    domain: string;
    mode: DomainMode;
    role: Role;
    includeSubdomains: boolean;
    createdBy: string;
    verifiedBy: string | null;
  },
): Promise<DomainView | undefined> {
  const [row] = await db
    .insert(d)
    .values({ id: uuidv7(), ...domain, verifiedAt: domain.verifiedBy === null ? null : sql`now()` })
    .onConflictDoNothing()
    .returning(domainColumns);
  return row;
}

export async function findDomainInTenant(
  db: Executor,
  tenantId: string,
  domainId: string,
): Promise<DomainView | undefined> {
  const [row] = await db
    .select(domainColumns)
    .from(d)
    .where(and(eq(d.tenantId, tenantId), eq(d.id, domainId)));
  return row;
}

export async function updateDomain(
  db: Executor,
  tenantId: string,
  domainId: string,
  change: { mode?: DomainMode; role?: Role },
): Promise<DomainView> {
  const [row] = await db
    .update(d)
    .set({ ...change, updatedAt: sql`now()` })
    .where(and(eq(d.tenantId, tenantId), eq(d.id, domainId)))
    .returning(domainColumns);
  if (!row) throw new Error(`domain ${domainId} vanished under its tenant's lock`);
  return row;
}

/**
 * Marks the domain verified. Throws the unique violation of tenant_domains_verified_key when
 * another tenant verified the same domain (the transaction is then spent: its caller answers 409).
 */
export async function markDomainVerified(
  db: Executor,
  tenantId: string,
  domainId: string,
  verifiedBy: string,
): Promise<DomainView> {
  const [row] = await db
    .update(d)
    .set({ verifiedAt: sql`now()`, verifiedBy, updatedAt: sql`now()` })
    .where(and(eq(d.tenantId, tenantId), eq(d.id, domainId), isNull(d.verifiedAt)))
    .returning(domainColumns);
  if (!row) throw new Error(`domain ${domainId} vanished under its tenant's lock`);
  return row;
}

export async function deleteDomain(db: Executor, tenantId: string, domainId: string): Promise<void> {
  await db.delete(d).where(and(eq(d.tenantId, tenantId), eq(d.id, domainId)));
}

/**
 * Which tenant a domain belongs to, by its id alone: a super administrator verifying it names no
 * tenant. The tenant is then locked and the domain read again within it.
 */
export async function tenantOfDomain(db: Executor, domainId: string): Promise<string | undefined> {
  const [row] = await db.select({ tenantId: d.tenantId }).from(d).where(eq(d.id, domainId));
  return row?.tenantId;
}
