import type { AuditAction } from '@tms/contract';
import { and, desc, eq, gte, isNull, lt, type SQL, sql } from 'drizzle-orm';
import { type CallerRead, callerReadOf, selectWithCaller } from '../../access/caller-read.repository.js';
import type { Executor } from '../../db/database.js';
import { type AuditEventRow, auditEvents } from '../../db/schema.js';

export type AuditFilters = {
  action?: AuditAction;
  actorUserId?: string;
  targetId?: string;
  since?: Date;
  until?: Date;
};

/** Where the previous page ended: a sequence in a tenant, an instant and id across tenants. */
export type AuditPosition = { sequence: number } | { occurredAt: Date; id: string };

function filtered(filters: AuditFilters): SQL | undefined {
  const e = auditEvents;
  return and(
    filters.action ? eq(e.action, filters.action) : undefined,
    filters.actorUserId ? eq(e.actorUserId, filters.actorUserId) : undefined,
    filters.targetId ? eq(e.targetId, filters.targetId) : undefined,
    filters.since ? gte(e.occurredAt, filters.since) : undefined,
    filters.until ? lt(e.occurredAt, filters.until) : undefined,
  );
}

/**
 * A page of one tenant's events, newest first by sequence, read with the caller in one statement
 * (the tenant-admin gate in its WHERE). The tenant's (tenant_id, sequence) index serves it.
 */
export async function listTenantAuditEventsAs(
  db: Executor,
  subject: string,
  options: { tenantId: string; filters: AuditFilters; afterSequence?: number; limit: number },
): Promise<CallerRead<AuditEventRow>> {
  const e = auditEvents;
  const statement = selectWithCaller(
    db,
    {
      rule: 'tenantAdmin',
      tenantId: sql.placeholder('tenantId'),
      orderBy: (item) => [desc(item.sequence as SQL)],
    },
    (gate) =>
      db
        .select()
        .from(e)
        .where(
          and(
            gate,
            eq(e.tenantId, sql.placeholder('tenantId')),
            options.afterSequence === undefined ? undefined : lt(e.sequence, options.afterSequence),
            filtered(options.filters),
          ),
        )
        .orderBy(desc(e.sequence))
        .limit(options.limit),
  );
  return callerReadOf(await statement.execute({ subject, tenantId: options.tenantId }));
}

/**
 * A page of every event, platform events included, newest first by occurredAt then id (the
 * order across tenants: each tenant's sequence is its own), read with the caller in one statement.
 * `tenantId` null: platform events only; undefined: all.
 */
export async function listAllAuditEventsAs(
  db: Executor,
  subject: string,
  options: {
    tenantId?: string | null;
    filters: AuditFilters;
    after?: { occurredAt: Date; id: string };
    limit: number;
  },
): Promise<CallerRead<AuditEventRow>> {
  const e = auditEvents;
  const { after, tenantId } = options;
  const statement = selectWithCaller(
    db,
    {
      rule: 'superAdmin',
      orderBy: (item) => [desc(item.occurredAt as SQL), desc(item.id as SQL)],
    },
    (gate) =>
      db
        .select()
        .from(e)
        .where(
          and(
            gate,
            tenantId === undefined
              ? undefined
              : tenantId === null
                ? isNull(e.tenantId)
                : eq(e.tenantId, tenantId),
            after
              ? sql`(${e.occurredAt}, ${e.id}) < (${after.occurredAt.toISOString()}::timestamptz, ${after.id}::uuid)`
              : undefined,
            filtered(options.filters),
          ),
        )
        .orderBy(desc(e.occurredAt), desc(e.id))
        .limit(options.limit),
  );
  return callerReadOf(await statement.execute({ subject }));
}
