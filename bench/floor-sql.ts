/**
 * The floor's SQL: every read in one statement, every write in the lock and one statement. The
 * access rule sits in each statement's WHERE, so that the data is read (or written) only when the
 * caller may; the caller's columns come back either way and tell which refusal applies.
 *
 * The role enum is declared highest first (OWNER < ADMIN < TEACHER < STUDENT), so `role <= 'ADMIN'`
 * reads "OWNER or ADMIN", and `a >= b` reads "a is not above b".
 */

/**
 * As the service's membership-status.sql.ts: only a membership not suspended and within its term
 * grants anything; `now()` is the transaction's start, so one statement sees one answer.
 */
const isActive = (m: string) =>
  `(${m}.suspended_at is null and (${m}.starts_at is null or ${m}.starts_at <= now()) and (${m}.ends_at is null or ${m}.ends_at > now()))`;
const statusOf = (m: string) =>
  `(case when ${m}.suspended_at is not null then 'SUSPENDED' when ${m}.ends_at is not null and ${m}.ends_at <= now() then 'ENDED' when ${m}.starts_at is not null and ${m}.starts_at > now() then 'SCHEDULED' else 'ACTIVE' end)`;

/**
 * The caller by the token's subject, whether the URL's tenant exists, and the caller's role there.
 * A deleted tenant is a missing one, and a membership that is not ACTIVE no membership.
 */
const READ_CALLER = `with caller as (
  select u.id as caller_id, u.is_super_admin, t.id is not null as tenant_exists, m.role as caller_role
  from users u
  left join tenants t on t.id = $1::uuid and t.deleted_at is null
  left join tenant_memberships m on m.tenant_id = t.id and m.user_id = u.id and ${isActive('m')}
  where u.subject = $2::text
)`;

/** A tenant's OWNERs and ADMINs may read its members; a super administrator, any tenant's. */
const MAY_READ = `(c.is_super_admin or c.caller_role <= 'ADMIN')`;

/** What a membership answer shows; the name falls back to the one the tenant gave when inviting. */
const MEMBERSHIP = `tm.id, tm.tenant_id, tm.user_id, tm.role, tm.version, tm.created_at, tm.updated_at,
  tm.starts_at, tm.ends_at, tm.suspended_at, tm.suspension_reason, ${statusOf('tm')} as status,
  u.email, coalesce(u.display_name, tm.invited_display_name) as display_name`;

/** $1 tenant, $2 subject, $3 membership. */
export const GET_ONE = `${READ_CALLER}
select c.*, d.* from caller c left join lateral (
  select ${MEMBERSHIP} from tenant_memberships tm join users u on u.id = tm.user_id
  where tm.tenant_id = $1::uuid and tm.id = $3::uuid and ${MAY_READ}
  limit 1
) d on true`;

export type ListShape = { after: boolean; role: boolean; q: boolean };

/**
 * A page in creation order, one text per shape of filters (so that each is prepared once):
 * $1 tenant, $2 subject, $3 limit + 1, then the cursor's id, the role, the LIKE pattern as present.
 *
 * The search is the service's: a case-insensitive substring of the membership's `search` (the
 * address, the name and the invited name, one per line, kept by the schema's triggers), which its
 * trigram index serves.
 */
export function listPage(shape: ListShape): string {
  let n = 3;
  const after = shape.after ? ` and tm.id > $${++n}::uuid` : '';
  const role = shape.role ? ` and tm.role = $${++n}::membership_role` : '';
  const q = shape.q ? ` and tm.search ilike $${++n}::text` : '';
  return `${READ_CALLER}
select c.*, d.* from caller c left join lateral (
  select ${MEMBERSHIP} from tenant_memberships tm join users u on u.id = tm.user_id
  where tm.tenant_id = $1::uuid and ${MAY_READ}${after}${role}${q}
  order by tm.id limit $3::int
) d on true
order by d.id`;
}

/** $1 subject: the caller and its memberships, whatever their status, with their tenants (not deleted). */
export const ME = `select u.id as caller_id, u.email, u.display_name, u.is_super_admin, d.*
from users u left join lateral (
  select m.id, m.tenant_id, t.slug, t.name, m.role, ${statusOf('m')} as status, m.starts_at, m.ends_at
  from tenant_memberships m join tenants t on t.id = m.tenant_id and t.deleted_at is null
  where m.user_id = u.id
) d on true
where u.subject = $1::text
order by d.id`;

/**
 * Serialises the tenant's membership writes, as the service's lock does: the last-owner rule and
 * the hierarchy are then read from a picture nobody changes before commit.
 */
export const LOCK_TENANT = 'select id from tenants where id = $1::uuid and deleted_at is null for update';

/**
 * The caller's role, read in a statement of its own after the lock: under READ COMMITTED a
 * statement reads the snapshot it started with, so a role read with the lock would be the one from
 * before the wait, and the writer that held the lock may just have demoted the caller.
 */
const WRITE_CALLER = `with caller as (
  select u.id as caller_id, u.is_super_admin, m.role as caller_role
  from users u left join tenant_memberships m on m.tenant_id = $1::uuid and m.user_id = u.id and ${isActive('m')}
  where u.subject = $2::text
)`;

/**
 * $1 tenant, $2 subject, $3 user, $4 role, $5 the new membership's id. Nobody hands out a role
 * above their own; an existing membership is left alone (ON CONFLICT DO NOTHING, so that the
 * transaction stays usable) and shows as no row inserted.
 */
export const CREATE = `${WRITE_CALLER},
target as (select id, email, display_name from users where id = $3::uuid),
ins as (
  insert into tenant_memberships (id, tenant_id, user_id, role)
  select $5::uuid, $1::uuid, t.id, $4::membership_role from caller c, target t
  where c.is_super_admin or (c.caller_role <= 'ADMIN' and $4::membership_role >= c.caller_role)
  on conflict (tenant_id, user_id) do nothing
  returning id, tenant_id, user_id, role, version, created_at, updated_at,
    starts_at, ends_at, suspended_at, suspension_reason, ${statusOf('tenant_memberships')} as status
)
select c.*, t.id is not null as target_exists, t.email, t.display_name, i.*
from caller c left join target t on true left join ins i on true`;

/**
 * $1 tenant, $2 subject, $3 membership. Nobody removes a role above their own, and a tenant keeps
 * at least one ACTIVE OWNER: without one it could never be administered again by its own people.
 */
export const REMOVE = `${WRITE_CALLER},
target as (
  select id, role, role = 'OWNER' and ${isActive('tenant_memberships')} as active_owner
  from tenant_memberships where tenant_id = $1::uuid and id = $3::uuid
),
del as (
  delete from tenant_memberships m using caller c, target t
  where m.tenant_id = $1::uuid and m.id = t.id
    and (c.is_super_admin or (c.caller_role <= 'ADMIN' and t.role >= c.caller_role))
    and (not t.active_owner or exists (
      select 1 from tenant_memberships o
      where o.tenant_id = $1::uuid and o.role = 'OWNER' and o.id <> t.id and ${isActive('o')}))
  returning m.id
)
select c.*, t.role as target_role, t.active_owner, d.id is not null as deleted
from caller c left join target t on true left join del d on true`;
