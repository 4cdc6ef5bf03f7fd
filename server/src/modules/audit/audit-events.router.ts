import { contract } from '@tms/contract';
import { read, routes } from '../../pipeline/handlers.js';
import { toAuditEventDto } from './audit-events.dto.js';
import { listAllAuditEvents, listTenantAuditEvents } from './audit-events.service.js';

/** Reads only: events are written by the changes themselves (recordAuditEvent), never through the API. */
export const auditEventsRoutes = routes(contract.auditEvents, {
  listForTenant: read(async ({ db, requester }, { query }) => {
    const page = await listTenantAuditEvents(db, requester, query);
    return { status: 200, data: page.items.map(toAuditEventDto), meta: { nextCursor: page.nextCursor } };
  }),
  listAll: read(async ({ db, requester }, { query }) => {
    const page = await listAllAuditEvents(db, requester, query);
    return { status: 200, data: page.items.map(toAuditEventDto), meta: { nextCursor: page.nextCursor } };
  }),
});
