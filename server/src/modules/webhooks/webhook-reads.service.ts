import type { ListWebhookDeliveriesQuery, ListWebhooksQuery } from '@tms/contract';
import { parsedAfterAccess, type Requester, readAsCaller } from '../../access/read-as-caller.js';
import type { Database } from '../../db/database.js';
import type { WebhookEndpointRow } from '../../db/schema.js';
import { ValidationFailedError, WebhookNotFoundError } from '../../errors/index.js';
import {
  decodeCursor,
  decodeSortedCursor,
  encodeSortedCursor,
  type Page,
  toPage,
} from '../../pagination/cursor.js';
import { type DeliveryView, listDeliveriesAs } from './webhook-deliveries.repository.js';
import { findEndpointAs, listEndpointsAs, type WebhookOwner } from './webhooks.repository.js';

/*
 * Reads of endpoints and deliveries, a tenant's (its OWNERs and ADMINs, super administrators) or
 * the platform's (super administrators): each one statement with its caller, decided as every
 * read is (access/read-as-caller.ts), so a non-member gets TENANT_ACCESS_DENIED and reads nothing.
 */

export async function getEndpoint(
  db: Database,
  requester: Requester,
  owner: WebhookOwner,
  webhookId: string,
): Promise<WebhookEndpointRow> {
  const { items } = await readAsCaller(db, requester, (subject) =>
    findEndpointAs(db, subject, owner, webhookId),
  );
  const [endpoint] = items;
  if (!endpoint) throw new WebhookNotFoundError(webhookId);
  return endpoint;
}

/** The owner's endpoints, oldest first. */
export async function listEndpointsPage(
  db: Database,
  requester: Requester,
  owner: WebhookOwner,
  query: ListWebhooksQuery,
): Promise<Page<WebhookEndpointRow>> {
  const afterId = await parsedAfterAccess(db, requester, () => decodeCursor(query.cursor));
  const { items } = await readAsCaller(db, requester, (subject) =>
    listEndpointsAs(db, subject, owner, { afterId, limit: query.limit + 1 }),
  );
  return toPage(items, query.limit);
}

const notOurs = () =>
  new ValidationFailedError([
    { path: 'query.cursor', message: 'not a cursor this API gave out for this list' },
  ]);

/** A page of deliveries ends at a position (the outbox's order); the id rides along, as in every cursor. */
function beforePosition(cursor: string | undefined): number | undefined {
  const position = decodeSortedCursor(cursor, 'position');
  if (!position) return undefined;
  const value = Number(position.key);
  if (!Number.isSafeInteger(value) || value < 1) throw notOurs();
  return value;
}

/** An endpoint's deliveries, newest first, optionally of one status; WEBHOOK_NOT_FOUND when it is not here. */
export async function listDeliveriesPage(
  db: Database,
  requester: Requester,
  owner: WebhookOwner,
  webhookId: string,
  query: ListWebhookDeliveriesQuery,
): Promise<Page<DeliveryView>> {
  const before = await parsedAfterAccess(db, requester, () => beforePosition(query.cursor));
  const { items } = await readAsCaller(db, requester, (subject) =>
    listDeliveriesAs(db, subject, owner, {
      webhookId,
      status: query.status,
      beforePosition: before,
      limit: query.limit + 1,
    }),
  );
  if (items.length === 0) throw new WebhookNotFoundError(webhookId);
  const deliveries = items.filter((delivery): delivery is DeliveryView => delivery !== null);
  return toPage(deliveries, query.limit, (last) =>
    encodeSortedCursor('position', { key: String(last.position), id: last.id }),
  );
}
