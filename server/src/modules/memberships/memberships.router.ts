import { contract } from '@tms/contract';
import type { Database } from '../../db/database.js';
import { enveloped } from '../../routing/enveloped.js';
import { auditContextOf, requesterOf, tenantAccessOf, transactionOf } from '../../routing/request-context.js';
import { etagOf } from '../shared/if-match.js';
import { changeMembership, reactivateMembership, suspendMembership } from './membership-updates.service.js';
import { toMembershipDto } from './memberships.dto.js';
import type { MembershipWithUser } from './memberships.repository.js';
import {
  createMembership,
  getMembership,
  listMembershipsPage,
  removeMembership,
} from './memberships.service.js';

/**
 * Tenant routes. Reads decide access on the caller read with their data (requesterOf); writes were
 * decided before the request got here, and run in the transaction they were decided in
 * (transactionOf), which commits before the answer is sent.
 */
export const membershipsRouter = (db: Database) =>
  enveloped(contract.memberships, {
    list: async ({ req, query }) => {
      const page = await listMembershipsPage(db, requesterOf(req), query);
      const meta = {
        nextCursor: page.nextCursor,
        ...(page.total === undefined ? {} : { total: page.total }),
      };
      return { status: 200, data: page.items.map(toMembershipDto), meta };
    },
    get: async ({ req, params }) =>
      withEtag(200, await getMembership(db, requesterOf(req), params.tenantMembershipId)),
    create: async ({ req, body }) =>
      withEtag(
        201,
        await createMembership(transactionOf(req), tenantAccessOf(req), auditContextOf(req), body),
      ),
    update: async ({ req, params, body, headers }) =>
      withEtag(
        200,
        await changeMembership(
          transactionOf(req),
          tenantAccessOf(req),
          auditContextOf(req),
          params.tenantMembershipId,
          body,
          headers['if-match'],
        ),
      ),
    suspend: async ({ req, params, body, headers }) =>
      withEtag(
        200,
        await suspendMembership(
          transactionOf(req),
          tenantAccessOf(req),
          auditContextOf(req),
          params.tenantMembershipId,
          body,
          headers['if-match'],
        ),
      ),
    reactivate: async ({ req, params, headers }) =>
      withEtag(
        200,
        await reactivateMembership(
          transactionOf(req),
          tenantAccessOf(req),
          auditContextOf(req),
          params.tenantMembershipId,
          headers['if-match'],
        ),
      ),
    remove: async ({ req, params, headers }) => {
      await removeMembership(
        transactionOf(req),
        tenantAccessOf(req),
        auditContextOf(req),
        params.tenantMembershipId,
        headers['if-match'],
      );
      return { status: 204 };
    },
  });

const withEtag = <S extends 200 | 201>(status: S, membership: MembershipWithUser) => ({
  status,
  data: toMembershipDto(membership),
  headers: { ETag: etagOf(membership.version) },
});
