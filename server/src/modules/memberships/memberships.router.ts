import { contract } from '@tms/contract';
import type { Database } from '../../db/database.js';
import { normalised } from '../../http/normalise-response.js';
import { callerOf, tenantAccessOf } from '../../http/request-context.js';
import { etagOf } from '../shared/if-match.js';
import { toMembershipDto } from './memberships.dto.js';
import {
  changeMembershipRole,
  createMembership,
  listMembershipsPage,
  readMembership,
  removeMembership,
} from './memberships.service.js';

/** Tenant routes; the authorise middleware has settled the caller's access to the URL's tenant. */
export const membershipsRouter = (db: Database) =>
  normalised(contract.memberships, {
    list: async ({ req, query }) => {
      const page = await listMembershipsPage(db, tenantAccessOf(req), query);
      return { status: 200, data: page.items.map(toMembershipDto), meta: { nextCursor: page.nextCursor } };
    },
    get: async ({ req, params }) => {
      const membership = await readMembership(db, tenantAccessOf(req), params.tenantMembershipId);
      return {
        status: 200,
        data: toMembershipDto(membership),
        headers: { ETag: etagOf(membership.version) },
      };
    },
    create: async ({ req, params, body }) => {
      const membership = await createMembership(db, callerOf(req), params.tenantId, body);
      return {
        status: 201,
        data: toMembershipDto(membership),
        headers: { ETag: etagOf(membership.version) },
      };
    },
    update: async ({ req, params, body, headers }) => {
      const { tenantId, tenantMembershipId } = params;
      const membership = await changeMembershipRole(
        db,
        callerOf(req),
        tenantId,
        tenantMembershipId,
        body,
        headers['if-match'],
      );
      return {
        status: 200,
        data: toMembershipDto(membership),
        headers: { ETag: etagOf(membership.version) },
      };
    },
    remove: async ({ req, params, headers }) => {
      const { tenantId, tenantMembershipId } = params;
      await removeMembership(db, callerOf(req), tenantId, tenantMembershipId, headers['if-match']);
      return { status: 204 };
    },
  });
