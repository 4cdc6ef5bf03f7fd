import type { AuditAction, AuditTargetType } from '@tms/contract';
import { type SQL, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import type { Executor } from '../../db/database.js';
import { fixedStatement, runStatement, type Statement } from '../../db/fixed-statement.js';
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

/** A kind of change made by the statement that records its event, rendered with it once (recordedWith). */
export type ChangeKind = (values: Record<string, unknown>) => Statement;

/** A change for auditEventStatement to make: its kind, and its values. */
export type Change = { kind: ChangeKind; values: Record<string, unknown> };

/** The event's values: named `event...`, which no change's are. */
const value = sql.placeholder;

/**
 * The statement that records an event, with `change` (an INSERT, UPDATE or DELETE whose answer is
 * not needed) made by the same statement, as a data-modifying WITH, which PostgreSQL runs to
 * completion whether or not anything reads it: a write with its tenant locked spends one statement
 * less there (one Bind, Execute and answer), and the change and its event still succeed or fail
 * together.
 *
 * The tenant's counter row is taken (made at the first event) and incremented, which locks it until
 * commit, so the next writer of the tenant gets the next number only once this one is committed or
 * rolled back (a rollback takes its number back): numbers are given in commit order, without gaps
 * or duplicates, across processes. The same statement fills the webhook outbox: one delivery per
 * enabled endpoint that wants the action, the tenant's and the platform's. Its `position` is taken
 * after the counter's lock, so an endpoint receives a tenant's events in commit order (see
 * modules/webhooks/delivery-queue).
 */
const recording = (change: SQL | undefined) => sql`
    with ${change ? sql`changed as (${change}), ` : sql``}numbered as (
      insert into audit_sequences (scope, last) values (${value('eventScope')}::uuid, 1)
      on conflict (scope) do update set last = audit_sequences.last + 1
      returning last
    ), recorded as (
      insert into audit_events (id, tenant_id, sequence, action, actor_user_id, actor_subject,
        actor_is_super_admin, target_type, target_id, before, after, request_id, occurred_at)
      select ${value('eventId')}::uuid, ${value('eventTenantId')}::uuid, numbered.last, ${value('eventAction')},
        ${value('eventActorUserId')}::uuid, ${value('eventActorSubject')}::text, ${value('eventActorIsSuperAdmin')}::boolean,
        ${value('eventTargetType')}, ${value('eventTargetId')}::uuid, ${value('eventBefore')}::jsonb, ${value('eventAfter')}::jsonb,
        ${value('eventRequestId')}::text,
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

const alone = fixedStatement('audit_event', recording(undefined));

/**
 * The statement that records an event and makes `change` (an INSERT, UPDATE or DELETE written with
 * named placeholders), declared once by the module that makes the change, as `<name>_with_event`.
 */
export const recordedWith = (name: string, change: SQL): ChangeKind =>
  fixedStatement(`${name}_with_event`, recording(change));

/**
 * The one way an event is written, inside the change's own transaction (`tx`): the change and its
 * event commit together or not at all (see `recording`).
 */
export async function recordAuditEvent(tx: Executor, event: AuditEventInput): Promise<void> {
  await runStatement(tx, auditEventStatement(event));
}

/**
 * The statement that records `event` (recordAuditEvent), for a change that pipelines it
 * (TenantWrite), with `change` made by it too.
 */
export function auditEventStatement(input: AuditEventInput, change?: Change): Statement {
  const { actor, requestId } = input.context;
  const values = {
    eventScope: input.tenantId ?? PLATFORM_SCOPE,
    eventId: uuidv7(),
    eventTenantId: input.tenantId,
    eventAction: input.action,
    eventActorUserId: actor.userId,
    eventActorSubject: actor.subject,
    eventActorIsSuperAdmin: actor.isSuperAdmin,
    eventTargetType: input.target.type,
    eventTargetId: input.target.id,
    eventBefore: json(input.before),
    eventAfter: json(input.after),
    eventRequestId: requestId,
  };
  return change ? change.kind({ ...change.values, ...values }) : alone(values);
}
