import { JOIN_REQUEST_DAYS } from '@tms/contract';
import { and, asc, eq, isNotNull, isNull, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../db/database.js';
import { preparedPer } from '../../db/prepared.js';
import { rowsOf } from '../../db/rows.js';
import {
  tenantDomains as d,
  domainJoins,
  joinBlocks,
  joinRequests,
  tenantMemberships,
  tenants,
  users,
} from '../../db/schema.js';
import { type JoinRequestView, joinRequestColumns } from '../joining/join-requests.repository.js';
import { type MembershipWithUser, withUser } from '../memberships/memberships.repository.js';
import type { DomainView } from './domains.repository.js';

/*
 * A verified domain applied to people (docs/joining.md, "Verified domains"): who it reaches, the
 * record that it reached them (domain_joins, once per tenant and person), and what it makes for
 * them (memberships or join requests), each in a constant number of statements whatever their
 * number, under the tenant's lock.
 */

/**
 * The domain of a canonical address and the domains above it, as the look-up takes them:
 * `a@x.school.edu` is `x.school.edu`, under `school.edu` and `edu`.
 */
export function domainsOfAddress(emailDomain: string): { exact: string; parents: string } {
  const labels = emailDomain.split('.');
  return {
    exact: emailDomain,
    parents: labels
      .slice(1)
      .map((_, i) => labels.slice(i + 1).join('.'))
      .join(','),
  };
}

const actingDomains = preparedPer((db) =>
  db
    .select({ id: d.id, tenantId: d.tenantId })
    .from(d)
    // A deleted tenant is never joined.
    .innerJoin(tenants, and(eq(tenants.id, d.tenantId), isNull(tenants.deletedAt)))
    .where(
      and(
        isNotNull(d.verifiedAt),
        // Exactly the address's domain, or one above it that includes its subdomains: by whole
        // labels (the index on verified domains finds each), never a substring.
        sql`(${d.domain} = ${sql.placeholder('exact')} or (${d.includeSubdomains}
          and ${d.domain} = any(string_to_array(${sql.placeholder('parents')}::text, ','))))`,
        sql`not exists (select 1 from ${domainJoins} where ${domainJoins.tenantId} = ${d.tenantId}
          and ${domainJoins.userId} = ${sql.placeholder('userId')})`,
      ),
    )
    .orderBy(asc(d.tenantId))
    .prepare('domains_acting_on_address'),
);

/**
 * The verified domains, of live tenants, at the person's address and not yet applied to them:
 * one statement, across tenants (a domain belongs to one tenant, the person to none yet).
 */
export async function findDomainsActingOn(
  db: Executor,
  userId: string,
  emailDomain: string,
): Promise<{ id: string; tenantId: string }[]> {
  return actingDomains(db).execute({ userId, ...domainsOfAddress(emailDomain) });
}

/** Whom a domain is applied to: one person (at sign-in), or everyone known at it (at verification). */
export type Reach = { userId: string } | 'everyone';

/** A user's address is at the domain: the part after the last `@` of its canonical form. */
function addressAt(domain: DomainView): SQL {
  const at = sql`substring(${users.emailCanonical} from '[^@]*$')`;
  const exact = sql`${at} = ${domain.domain}`;
  if (!domain.includeSubdomains) return exact;
  return sql`(${exact} or right(${at}, ${domain.domain.length + 1}::int) = ${`.${domain.domain}`})`;
}

export type Reached = { userId: string; member: boolean; blocked: boolean; pending: boolean };

/**
 * Records the domain as applied to the people it reaches and was not applied to yet, and answers
 * each with what stands in the way of acting (a membership, a block, a pending request). Only
 * people who signed in: their stored address came from their identity provider, verified
 * (identity/identify.ts); an invited user's address is only what an admin typed. On verification
 * this reads every user: a rare change by a super administrator or a tenant's head.
 */
export async function recordReached(tx: Executor, domain: DomainView, reach: Reach): Promise<Reached[]> {
  const tenantId = domain.tenantId;
  const who = reach === 'everyone' ? sql`true` : sql`${users.id} = ${reach.userId}::uuid`;
  const result = await tx.execute(sql`
    with applied as (
      insert into ${domainJoins} (tenant_id, user_id, domain_id)
      select ${tenantId}::uuid, ${users.id}, ${domain.id}::uuid from ${users}
      where ${who} and ${users.subject} is not null and ${users.erasedAt} is null
        and ${users.emailCanonical} is not null and ${addressAt(domain)}
      order by ${users.id}
      on conflict do nothing
      returning user_id
    )
    select applied.user_id as "userId",
      exists (select 1 from ${tenantMemberships} m where m.tenant_id = ${tenantId}::uuid
        and m.user_id = applied.user_id) as "member",
      exists (select 1 from ${joinBlocks} b where b.tenant_id = ${tenantId}::uuid
        and b.user_id = applied.user_id) as "blocked",
      exists (select 1 from ${joinRequests} r where r.tenant_id = ${tenantId}::uuid
        and r.user_id = applied.user_id and r.status = 'PENDING' and r.expires_at > now()) as "pending"
    from applied order by applied.user_id`);
  return rowsOf<Reached>(result);
}

/** Staged as one jsonb parameter, whatever the number: new ids made here, one per person. */
const staged = (userIds: readonly string[]) =>
  sql`jsonb_to_recordset(${JSON.stringify(userIds.map((userId) => ({ id: uuidv7(), user_id: userId })))}::jsonb)
    as r(id uuid, user_id uuid)`;

/** The rows an insert returned (`returning id`), as a condition on `column` for reading them back. */
const oneOfInserted = (column: SQLWrapper, result: unknown) =>
  sql`${column} in (select value::uuid from jsonb_array_elements_text(${JSON.stringify(
    rowsOf<{ id: string }>(result).map((row) => row.id),
  )}::jsonb))`;

/** ACTIVE memberships with the domain's role, read back as the API shows them. */
export async function insertDomainMemberships(
  tx: Executor,
  domain: DomainView,
  userIds: readonly string[],
): Promise<MembershipWithUser[]> {
  if (userIds.length === 0) return [];
  const inserted = await tx.execute(sql`
    insert into ${tenantMemberships} (id, tenant_id, user_id, role)
    select r.id, ${domain.tenantId}::uuid, r.user_id, ${domain.role}::membership_role from ${staged(userIds)}
    order by r.user_id
    on conflict do nothing
    returning id`);
  return tx
    .select(withUser)
    .from(tenantMemberships)
    .innerJoin(users, eq(users.id, tenantMemberships.userId))
    .where(
      and(eq(tenantMemberships.tenantId, domain.tenantId), oneOfInserted(tenantMemberships.id, inserted)),
    )
    .orderBy(asc(tenantMemberships.id));
}

/**
 * PENDING requests for the domain's role, as a code's (JOIN_REQUEST_DAYS, one pending per person
 * and tenant). A lapsed request still PENDING in its row is written EXPIRED first, as
 * insertJoinRequest does, so that it no longer holds the one pending slot.
 */
export async function insertDomainJoinRequests(
  tx: Executor,
  domain: DomainView,
  userIds: readonly string[],
): Promise<JoinRequestView[]> {
  if (userIds.length === 0) return [];
  const people = sql`(select value::uuid from jsonb_array_elements_text(${JSON.stringify(userIds)}::jsonb))`;
  await tx.execute(sql`
    update ${joinRequests} set status = 'EXPIRED', updated_at = now()
    where tenant_id = ${domain.tenantId}::uuid and user_id in ${people}
      and status = 'PENDING' and expires_at <= now()`);
  const inserted = await tx.execute(sql`
    insert into ${joinRequests} (id, tenant_id, user_id, domain_id, role, expires_at)
    select r.id, ${domain.tenantId}::uuid, r.user_id, ${domain.id}::uuid, ${domain.role}::membership_role,
      now() + make_interval(days => ${JOIN_REQUEST_DAYS}::int)
    from ${staged(userIds)}
    order by r.user_id
    returning id`);
  return tx
    .select(joinRequestColumns)
    .from(joinRequests)
    .innerJoin(users, eq(users.id, joinRequests.userId))
    .where(and(eq(joinRequests.tenantId, domain.tenantId), oneOfInserted(joinRequests.id, inserted)))
    .orderBy(asc(joinRequests.id));
}
