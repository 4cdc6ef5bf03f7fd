import type { AuditAction, AuditTargetType } from '@tms/contract';
import { type SQL, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../db/database.js';
import type { AuditContext } from './audit-context.js';

/** The sequence of platform events (tenantId null): one scope among the tenants'. */
export const PLATFORM_SCOPE = '00000000-0000-0000-0000-000000000000';

/** A change as the trail records it: before and after are the resource as the API shows it, or null. */
export type AuditEventInput = {
  tenantId: string | null;
  action: AuditAction;
  target: { type: AuditTargetType; id: string };
  before: object | null;
  after: object | null;
  context: AuditContext;
};

const json = (value: object | null) => (value === null ? null : JSON.stringify(value));

/**
 * The one way an event is written, inside the change's own transaction (`tx`): the change and its
 * event commit together or not at all. One statement: the tenant's counter row is taken (made at
 * the first event) and incremented, which locks it until commit, so the next writer of the tenant
 * gets the next number only once this one is committed or rolled back (a rollback takes its
 * number back): numbers are given in commit order, without gaps or duplicates, across processes.
 *
 * The same statement fills the webhook outbox: one delivery per enabled endpoint that wants the
 * action, the tenant's and the platform's. Its `position` is taken after the counter's lock, so
 * an endpoint receives a tenant's events in commit order (see modules/webhooks/delivery-queue).
 */
export async function recordAuditEvent(tx: Executor, event: AuditEventInput): Promise<void> {
  await tx.execute(auditEventStatement(event));
}

/**
 * The statement that records `event` (recordAuditEvent), for a change that pipelines it (TenantWrite).
 * With `change` (an INSERT, UPDATE or DELETE whose answer is not needed), the change is made by the
 * same statement, as a data-modifying WITH, which PostgreSQL runs to completion whether or not
 * anything reads it: a write with its tenant locked spends one statement less there (one Bind,
 * Execute and answer), and the change and its event still succeed or fail together.
 */
export function auditEventStatement(event: AuditEventInput, change?: SQL): SQL {
  const { actor, requestId } = event.context;
  return sql`
    with ${change ? sql`changed as (${change}), ` : sql``}numbered as (
      insert into audit_sequences (scope, last) values (${event.tenantId ?? PLATFORM_SCOPE}::uuid, 1)
      on conflict (scope) do update set last = audit_sequences.last + 1
      returning last
    ), recorded as (
      insert into audit_events (id, tenant_id, sequence, action, actor_user_id, actor_subject,
        actor_is_super_admin, target_type, target_id, before, after, request_id, occurred_at)
      select ${uuidv7()}::uuid, ${event.tenantId}::uuid, numbered.last, ${event.action}, ${actor.userId}::uuid,
        ${actor.subject}::text, ${actor.isSuperAdmin}::boolean, ${event.target.type}, ${event.target.id}::uuid,
        ${json(event.before)}::jsonb, ${json(event.after)}::jsonb, ${requestId}::text,
        -- Milliseconds, as the API shows it: a keyset cursor on it then finds the row again.
        date_trunc('milliseconds', now())
      from numbered
      returning id, tenant_id, action
    )
    insert into webhook_deliveries (id, endpoint_id, audit_event_id, position)
    select gen_random_uuid(), endpoint.id, recorded.id, nextval('webhook_delivery_position')
    from recorded
    join webhook_endpoints endpoint
      on endpoint.enabled
      and (endpoint.tenant_id = recorded.tenant_id or endpoint.tenant_id is null)
      and (recorded.action = any(endpoint.events) or '*' = any(endpoint.events))`;
}
