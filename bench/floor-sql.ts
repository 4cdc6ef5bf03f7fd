/**
 * The floor's SQL: every read in one statement, every write in the lock and one statement (sent
 * together, with BEGIN and COMMIT). The access rule sits in each statement's WHERE, so that the
 * data is read (or written) only when the caller may; the caller's columns come back either way
 * and tell which refusal applies.
 *
 * The role enum is declared highest first (OWNER < ADMIN < TEACHER < STUDENT), so `role <= 'ADMIN'`
 * reads "OWNER or ADMIN", and `a >= b` reads "a is not above b".
 */

/** The roles' levels (the contract's ROLE_LEVEL), which a membership answer shows. */
export const LEVEL: Record<string, number> = { OWNER: 40, ADMIN: 30, TEACHER: 20, STUDENT: 10 };

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
const CALLER = `with caller as (
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
  tm.starts_at, tm.ends_at, tm.suspended_at, tm.suspension_reason, tm.managed_by, ${statusOf('tm')} as status,
  u.email, coalesce(u.display_name, tm.invited_display_name) as display_name`;

/** $1 tenant, $2 subject, $3 membership. */
export const GET_ONE = `${CALLER}
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
  return `${CALLER}
select c.*, d.* from caller c left join lateral (
  select ${MEMBERSHIP} from tenant_memberships tm join users u on u.id = tm.user_id
  where tm.tenant_id = $1::uuid and ${MAY_READ}${after}${role}${q}
  order by tm.id limit $3::int
) d on true
order by d.id`;
}

/**
 * $1 subject: the caller and its memberships, whatever their status, with their tenants (not
 * deleted); beside them, once per caller, the tenants where it is an ACTIVE guardian and of whom.
 */
export const ME = `select u.id as caller_id, u.email, u.display_name, u.is_super_admin, g.guardian_of, d.*
from users u left join lateral (
  select coalesce(json_agg(json_build_object('tenantId', w.tenant_id, 'tenantSlug', t.slug,
    'tenantName', t.name, 'studentUserIds', w.students) order by w.tenant_id), '[]') as guardian_of
  from (select tenant_id, array_agg(student_user_id order by student_user_id) as students
    from guardian_links where guardian_user_id = u.id and status = 'ACTIVE' group by tenant_id) w
  join tenants t on t.id = w.tenant_id and t.deleted_at is null
) g on true left join lateral (
  select m.id, m.tenant_id, t.slug, t.name, m.role, ${statusOf('m')} as status, m.starts_at, m.ends_at
  from tenant_memberships m join tenants t on t.id = m.tenant_id and t.deleted_at is null
  where m.user_id = u.id
) d on true
where u.subject = $1::text
order by d.id`;

/**
 * The membership `m` (MEMBERSHIP's columns) as the API shows it, for the audit event's before or
 * after: server/src/modules/memberships/memberships.dto.ts in SQL (times as toISOString writes
 * them: UTC, milliseconds, truncated as a JavaScript Date truncates them).
 */
function membershipJson(m: string): string {
  const iso = (column: string) =>
    `to_char(${m}.${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  const level = Object.entries(LEVEL)
    .map(([role, n]) => `when '${role}' then ${n}`)
    .join(' ');
  return `jsonb_build_object('tenantMembershipId', ${m}.id, 'tenantId', ${m}.tenant_id, 'userId', ${m}.user_id,
    'role', ${m}.role, 'roleLevel', case ${m}.role ${level} end, 'status', ${m}.status,
    'startsAt', ${iso('starts_at')}, 'endsAt', ${iso('ends_at')}, 'suspendedAt', ${iso('suspended_at')},
    'suspensionReason', ${m}.suspension_reason, 'version', ${m}.version, 'managedBy', ${m}.managed_by,
    'user', jsonb_build_object('userId', ${m}.user_id, 'email', ${m}.email, 'displayName', ${m}.display_name),
    'createdAt', ${iso('created_at')}, 'updatedAt', ${iso('updated_at')})`;
}

/**
 * The change's audit event and its webhook deliveries, in the change's statement, as the service's
 * recordAuditEvent writes them (server/src/modules/audit/audit-events.repository.ts): the tenant's
 * counter row taken and incremented, the event inserted with that number, one outbox row per
 * enabled endpoint (the tenant's or the platform's) that wants the action, its position taken
 * after the counter's lock. From `change`, a CTE of the one membership changed (none: no event):
 * its id and tenant, `before` and `after`. The actor is the caller; $3 the event's id, $4 the
 * request id.
 */
const recordEvent = (action: string) => `numbered as (
  insert into audit_sequences (scope, last) select tenant_id, 1 from change
  on conflict (scope) do update set last = audit_sequences.last + 1
  returning last
), recorded as (
  insert into audit_events (id, tenant_id, sequence, action, actor_user_id, actor_subject,
    actor_is_super_admin, target_type, target_id, before, after, request_id, occurred_at)
  select $3::uuid, ch.tenant_id, n.last, '${action}', c.caller_id, $2::text, c.is_super_admin,
    'membership', ch.id, ch.before, ch.after, $4::text, date_trunc('milliseconds', now())
  from change ch, numbered n, caller c
  returning id, tenant_id, action
), queued as (
  insert into webhook_deliveries (id, endpoint_id, audit_event_id, position)
  select gen_random_uuid(), endpoint.id, recorded.id, nextval('webhook_delivery_position')
  from recorded
  join webhook_endpoints endpoint
    on endpoint.enabled
    and (endpoint.tenant_id = recorded.tenant_id or endpoint.tenant_id is null)
    and (recorded.action = any(endpoint.events) or '*' = any(endpoint.events))
)`;

/**
 * Serialises the tenant's membership writes, as the service's lock does: the last-owner rule and
 * the hierarchy are then read from a picture nobody changes before commit. Its answer is not
 * needed: the change's statement reads whether the tenant exists.
 *
 * The caller's role is read by that next statement, not with the lock: under READ COMMITTED a
 * statement reads the snapshot it started with, so a role read with the lock would be the one from
 * before the wait, and the writer that held the lock may just have demoted the caller. Sent
 * together, the second still starts once the lock is granted.
 */
export const LOCK_TENANT = 'select id from tenants where id = $1::uuid and deleted_at is null for update';

/**
 * May change the tenant's members: its OWNERs and ADMINs, and a super administrator if the tenant
 * exists; and then, with `role` the role given or removed, nobody acts on a role above their own.
 */
const MAY_WRITE = (role: string) =>
  `((c.is_super_admin and c.tenant_exists) or (c.caller_role <= 'ADMIN' and ${role} >= c.caller_role))`;

/**
 * $1 tenant, $2 subject, $3 event id, $4 request id, $5 user, $6 role, $7 the new membership's id.
 * An erased user is no one (USER_NOT_FOUND), as for the service. An existing membership is left
 * alone (ON CONFLICT DO NOTHING, so that the transaction stays usable) and shows as no row inserted.
 */
export const CREATE = `${CALLER},
target as (select id, email, display_name from users where id = $5::uuid and erased_at is null),
ins as (
  insert into tenant_memberships (id, tenant_id, user_id, role)
  select $7::uuid, $1::uuid, t.id, $6::membership_role from caller c, target t
  where ${MAY_WRITE('$6::membership_role')}
  on conflict (tenant_id, user_id) do nothing
  returning id, tenant_id, user_id, role, version, created_at, updated_at, starts_at, ends_at,
    suspended_at, suspension_reason, managed_by, invited_display_name, ${statusOf('tenant_memberships')} as status
),
made as (
  select i.*, t.email, coalesce(t.display_name, i.invited_display_name) as display_name
  from ins i, target t
),
change as (select m.id, m.tenant_id, null::jsonb as before, ${membershipJson('m')} as after from made m),
${recordEvent('membership.created')}
select c.*, t.id is not null as target_exists, m.*
from caller c left join target t on true left join made m on true`;

/**
 * $1 tenant, $2 subject, $3 event id, $4 request id, $5 membership. Nobody removes a role above
 * their own, and a tenant keeps at least one ACTIVE OWNER: without one it could never be
 * administered again by its own people.
 */
export const REMOVE = `${CALLER},
target as (
  select ${MEMBERSHIP}, tm.role = 'OWNER' and ${isActive('tm')} as active_owner
  from tenant_memberships tm join users u on u.id = tm.user_id
  where tm.tenant_id = $1::uuid and tm.id = $5::uuid
),
del as (
  delete from tenant_memberships m using caller c, target t
  where m.tenant_id = $1::uuid and m.id = t.id and ${MAY_WRITE('t.role')}
    and (not t.active_owner or exists (
      select 1 from tenant_memberships o
      where o.tenant_id = $1::uuid and o.role = 'OWNER' and o.id <> t.id and ${isActive('o')}))
  returning m.id
),
change as (
  select t.id, t.tenant_id, ${membershipJson('t')} as before, null::jsonb as after
  from target t join del on del.id = t.id
),
${recordEvent('membership.removed')}
select c.*, t.role as target_role, t.active_owner, del.id is not null as deleted
from caller c left join target t on true left join del on true`;
