import { contract } from '@tms/contract';
import type { Database } from '../../db/database.js';
import { enveloped } from '../../routing/enveloped.js';
import { requesterOf } from '../../routing/request-context.js';
import { toAuditEventDto } from './audit-events.dto.js';
import { listAllAuditEvents, listTenantAuditEvents } from './audit-events.service.js';

/** Reads only: events are written by the changes themselves (recordAuditEvent), never through the API. */
export const auditEventsRouter = (db: Database) =>
  enveloped(contract.auditEvents, {
    listForTenant: async ({ req, query }) => {
      const page = await listTenantAuditEvents(db, requesterOf(req), query);
      return { status: 200, data: page.items.map(toAuditEventDto), meta: { nextCursor: page.nextCursor } };
    },
    listAll: async ({ req, query }) => {
      const page = await listAllAuditEvents(db, requesterOf(req), query);
      return { status: 200, data: page.items.map(toAuditEventDto), meta: { nextCursor: page.nextCursor } };
    },
  });
