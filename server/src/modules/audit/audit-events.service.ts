import type { ListAllAuditEventsQuery, ListTenantAuditEventsQuery } from '@tms/contract';
import { parsedAfterAccess, type Requester, readAsCaller } from '../../access/read-as-caller.js';
import type { Database } from '../../db/database.js';
import type { AuditEventRow } from '../../db/schema.js';
import { ValidationFailedError } from '../../errors/index.js';
import { decodeSortedCursor, encodeSortedCursor, type Page, toPage } from '../../pagination/cursor.js';
import {
  type AuditFilters,
  listAllAuditEventsAs,
  listTenantAuditEventsAs,
} from './audit-pages.repository.js';

const filtersOf = (query: ListTenantAuditEventsQuery): AuditFilters => ({
  action: query.action,
  actorUserId: query.actorUserId,
  targetId: query.targetId,
  since: query.since === undefined ? undefined : new Date(query.since),
  until: query.until === undefined ? undefined : new Date(query.until),
});

const notOurs = () =>
  new ValidationFailedError([
    { path: 'query.cursor', message: 'not a cursor this API gave out for this list' },
  ]);

/** A tenant's page ends at a sequence (the id rides along, as every cursor of the API carries one). */
function afterSequence(cursor: string | undefined): number | undefined {
  const position = decodeSortedCursor(cursor, 'sequence');
  if (!position) return undefined;
  const sequence = Number(position.key);
  if (!Number.isSafeInteger(sequence) || sequence < 1) throw notOurs();
  return sequence;
}

function afterInstant(cursor: string | undefined): { occurredAt: Date; id: string } | undefined {
  const position = decodeSortedCursor(cursor, 'occurredAt');
  if (!position) return undefined;
  const occurredAt = new Date(position.key ?? '');
  if (Number.isNaN(occurredAt.getTime())) throw notOurs();
  return { occurredAt, id: position.id };
}

/** The tenant's events, newest first by sequence, read with the caller in one statement. */
export async function listTenantAuditEvents(
  db: Database,
  requester: Requester,
  query: ListTenantAuditEventsQuery,
): Promise<Page<AuditEventRow>> {
  const tenantId = requester.tenantId;
  if (tenantId === undefined) throw new Error('a tenant audit route without a tenant');
  const after = await parsedAfterAccess(db, requester, () => afterSequence(query.cursor));
  const { items } = await readAsCaller(db, requester, (subject) =>
    listTenantAuditEventsAs(db, subject, {
      tenantId,
      filters: filtersOf(query),
      afterSequence: after,
      limit: query.limit + 1,
    }),
  );
  return toPage(items, query.limit, (last) =>
    encodeSortedCursor('sequence', { key: String(last.sequence), id: last.id }),
  );
}

/** Every event (or one tenant's), platform events included, newest first by occurredAt then id. */
export async function listAllAuditEvents(
  db: Database,
  requester: Requester,
  query: ListAllAuditEventsQuery,
): Promise<Page<AuditEventRow>> {
  const after = await parsedAfterAccess(db, requester, () => afterInstant(query.cursor));
  const { items } = await readAsCaller(db, requester, (subject) =>
    listAllAuditEventsAs(db, subject, {
      tenantId: query.tenantId,
      filters: filtersOf(query),
      after,
      limit: query.limit + 1,
    }),
  );
  return toPage(items, query.limit, (last) =>
    encodeSortedCursor('occurredAt', { key: last.occurredAt.toISOString(), id: last.id }),
  );
}
