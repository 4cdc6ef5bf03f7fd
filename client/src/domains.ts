import type { Contract, CreateDomainBody, Domain, UpdateDomainBody } from '@tms/contract';
import {
  allPages,
  type ListQuery,
  type Page,
  type QueryOf,
  type Send,
  unwrap,
  unwrapNoContent,
  unwrapPage,
} from './answers.js';
import type { CallOptions, CreateOptions } from './options.js';
import { routes } from './routes.js';

/**
 * A tenant's mail domains (its OWNERs and ADMINs): people who sign in with a verified address at a
 * verified domain join, or ask to. `verify` is a super administrator's.
 */
export function domainsOf(send: Send) {
  const r = routes.domains;
  const domains = {
    /** Verified at once when the caller's own address is at the domain; otherwise `verifiedAt` is null. */
    create: async (tenantId: string, body: CreateDomainBody, options: CreateOptions = {}): Promise<Domain> =>
      unwrap(await send({ route: r.create, params: { tenantId }, body, options })),
    list: async (
      tenantId: string,
      query: QueryOf<Contract['domains']['list']> = {},
      options: CallOptions = {},
    ): Promise<Page<Domain>> =>
      unwrapPage(await send({ route: r.list, params: { tenantId }, query, options })),
    listAll: (
      tenantId: string,
      query: ListQuery<Contract['domains']['list']> = {},
      options: CallOptions = {},
    ): AsyncGenerator<Domain> => allPages((cursor) => domains.list(tenantId, { ...query, cursor }, options)),
    get: async (tenantId: string, domainId: string, options: CallOptions = {}): Promise<Domain> =>
      unwrap(await send({ route: r.get, params: { tenantId, domainId }, options })),
    update: async (
      tenantId: string,
      domainId: string,
      body: UpdateDomainBody,
      options: CallOptions = {},
    ): Promise<Domain> =>
      unwrap(await send({ route: r.update, params: { tenantId, domainId }, body, options })),
    remove: async (tenantId: string, domainId: string, options: CallOptions = {}): Promise<void> =>
      unwrapNoContent(await send({ route: r.remove, params: { tenantId, domainId }, options })),
    /** A super administrator's, having checked that the tenant's school owns the domain. */
    verify: async (domainId: string, options: CreateOptions = {}): Promise<Domain> =>
      unwrap(await send({ route: r.verify, params: { domainId }, options })),
  };
  return domains;
}
