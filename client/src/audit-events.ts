import type { AuditEvent, Contract } from '@tms/contract';
import { allPages, type ListQuery, type Page, type QueryOf, type Send, unwrapPage } from './answers.js';
import type { CallOptions } from './options.js';
import { routes } from './routes.js';

/**
 * The audit trail, newest first: a tenant's (its OWNERs and ADMINs, super administrators) by
 * sequence, or every event (super administrators) by occurredAt then id. Reads only.
 */
export function auditEventsOf(send: Send) {
  const r = routes.auditEvents;
  const auditEvents = {
    listForTenant: async (
      tenantId: string,
      query: QueryOf<Contract['auditEvents']['listForTenant']> = {},
      options: CallOptions = {},
    ): Promise<Page<AuditEvent>> =>
      unwrapPage(await send({ route: r.listForTenant, params: { tenantId }, query, options })),
    /** Every page of a tenant's events, newest first. */
    listAllForTenant: (
      tenantId: string,
      query: ListQuery<Contract['auditEvents']['listForTenant']> = {},
      options: CallOptions = {},
    ): AsyncGenerator<AuditEvent> =>
      allPages((cursor) => auditEvents.listForTenant(tenantId, { ...query, cursor }, options)),
    list: async (
      query: QueryOf<Contract['auditEvents']['listAll']> = {},
      options: CallOptions = {},
    ): Promise<Page<AuditEvent>> => unwrapPage(await send({ route: r.listAll, params: {}, query, options })),
    /** Every page of every event (or one tenant's: `tenantId`), newest first. */
    listAll: (
      query: ListQuery<Contract['auditEvents']['listAll']> = {},
      options: CallOptions = {},
    ): AsyncGenerator<AuditEvent> => allPages((cursor) => auditEvents.list({ ...query, cursor }, options)),
  };
  return auditEvents;
}
