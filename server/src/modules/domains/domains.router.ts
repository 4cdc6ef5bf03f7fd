import { contract } from '@tms/contract';
import { read, routes, tenantWrite, write } from '../../pipeline/handlers.js';
import { toDomainDto } from './domains.dto.js';
import {
  changeDomain,
  createDomain,
  getDomain,
  listDomainsPage,
  removeDomain,
  verifyDomain,
} from './domains.service.js';

/** A tenant's mail domains (changes under the tenant's lock), and a super administrator's verification. */
export const domainsRoutes = routes(contract.domains, {
  create: tenantWrite(async (change, { body }) => ({
    status: 201,
    data: toDomainDto(await createDomain(change, body)),
  })),
  list: read(async ({ db, requester }, { query }) => {
    const page = await listDomainsPage(db, requester, query);
    return { status: 200, data: page.items.map(toDomainDto), meta: { nextCursor: page.nextCursor } };
  }),
  get: read(async ({ db, requester }, { params }) => ({
    status: 200,
    data: toDomainDto(await getDomain(db, requester, params.domainId)),
  })),
  update: tenantWrite(async (change, { params, body }) => ({
    status: 200,
    data: toDomainDto(await changeDomain(change, params.domainId, body)),
  })),
  remove: tenantWrite(async (change, { params }) => {
    await removeDomain(change, params.domainId);
    return { status: 204 };
  }),
  verify: write(async ({ db, audit, caller }, { params }) => ({
    status: 200,
    data: toDomainDto(await verifyDomain(db, audit, caller, params.domainId)),
  })),
});
