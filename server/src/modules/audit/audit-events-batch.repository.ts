import { sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../db/database.js';
import { type AuditEventInput, PLATFORM_SCOPE } from './audit-events.repository.js';

/**
 * Many events in ONE statement, each exactly as recordAuditEvent writes one: a bulk change (a
 * roster import) writes thousands, and a round trip each would be most of its time.
 *
 * Each scope's counter row is taken once and bumped by its number of events, which locks it until
 * commit as a single event does; the events get the numbers last-n+1..last in the order given, so
 * a scope's numbers stay consecutive and in commit order. Counters are taken in scope order, so two
 * batches naming the same tenants cannot deadlock. The outbox's positions are drawn in the order
 * the events were given (the ordered subquery: nextval runs as its rows come out), so an endpoint
 * receives a tenant's events in their numbers' order.
 *
 * The events travel as one jsonb parameter, whatever their number.
 */
export async function recordAuditEvents(tx: Executor, events: readonly AuditEventInput[]): Promise<void> {
  if (events.length === 0) return;
  const staged = JSON.stringify(
    events.map((event) => ({
      id: uuidv7(),
      scope: event.tenantId ?? PLATFORM_SCOPE,
      tenant_id: event.tenantId,
      action: event.action,
      actor_user_id: event.context.actor.userId,
      actor_subject: event.context.actor.subject,
      actor_is_super_admin: event.context.actor.isSuperAdmin,
      target_type: event.target.type,
      target_id: event.target.id,
      before: event.before,
      after: event.after,
      request_id: event.context.requestId,
    })),
  );
  await tx.execute(sql`
    with given as (
      select (e.value->>'id')::uuid as id, (e.value->>'scope')::uuid as scope,
        (e.value->>'tenant_id')::uuid as tenant_id, e.value->>'action' as action,
        (e.value->>'actor_user_id')::uuid as actor_user_id, e.value->>'actor_subject' as actor_subject,
        (e.value->>'actor_is_super_admin')::boolean as actor_is_super_admin,
        e.value->>'target_type' as target_type, (e.value->>'target_id')::uuid as target_id,
        nullif(e.value->'before', 'null'::jsonb) as before, nullif(e.value->'after', 'null'::jsonb) as after,
        e.value->>'request_id' as request_id, e.ord
      from jsonb_array_elements(${staged}::jsonb) with ordinality as e(value, ord)
    ), counted as (
      select scope, count(*) as n from given group by scope
    ), numbered as (
      insert into audit_sequences (scope, last)
      select scope, n from counted order by scope
      on conflict (scope) do update set last = audit_sequences.last + excluded.last
      returning scope, last
    ), recorded as (
      insert into audit_events (id, tenant_id, sequence, action, actor_user_id, actor_subject,
        actor_is_super_admin, target_type, target_id, before, after, request_id, occurred_at)
      select given.id, given.tenant_id,
        numbered.last - counted.n + row_number() over (partition by given.scope order by given.ord),
        given.action, given.actor_user_id, given.actor_subject, given.actor_is_super_admin,
        given.target_type, given.target_id, given.before, given.after, given.request_id,
        -- Milliseconds, as the API shows it: a keyset cursor on it then finds the row again.
        date_trunc('milliseconds', now())
      from given join counted using (scope) join numbered using (scope)
      returning id, tenant_id, action
    )
    insert into webhook_deliveries (id, endpoint_id, audit_event_id, position)
    select gen_random_uuid(), due.endpoint_id, due.event_id, nextval('webhook_delivery_position')
    from (
      select endpoint.id as endpoint_id, recorded.id as event_id
      from recorded
      join given on given.id = recorded.id
      join webhook_endpoints endpoint
        on endpoint.enabled
        and (endpoint.tenant_id = recorded.tenant_id or endpoint.tenant_id is null)
        and (recorded.action = any(endpoint.events) or '*' = any(endpoint.events))
      order by given.ord, endpoint.id
    ) due`);
}
