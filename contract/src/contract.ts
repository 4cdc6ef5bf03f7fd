import { initContract } from '@ts-rest/core';
import { auditEventsContract } from './audit/audit-events.contract.js';
import { domainsContract } from './domains/domains.contract.js';
import { guardianInvitationsContract } from './guardians/guardian-invitations.contract.js';
import { guardiansContract } from './guardians/guardians.contract.js';
import { healthContract } from './health/health.contract.js';
import { invitationsContract } from './invitations/invitations.contract.js';
import { joinCodesContract } from './joining/join-codes.contract.js';
import { joinRequestsContract } from './joining/join-requests.contract.js';
import { meContract } from './me/me.contract.js';
import { membershipsContract } from './memberships/memberships.contract.js';
import { ownershipTransfersContract } from './ownership-transfers/ownership-transfers.contract.js';
import { membershipExportContract } from './rosters/membership-export.contract.js';
import { rosterImportsContract } from './rosters/roster-imports.contract.js';
import { scimGroupsContract } from './scim/scim-groups.contract.js';
import { scimTokensContract } from './scim/scim-tokens.contract.js';
import { tenantsContract } from './tenants/tenants.contract.js';
import { usersContract } from './users/users.contract.js';
import { platformWebhooksContract, webhooksContract } from './webhooks/webhooks.contract.js';

const c = initContract();

/**
 * The whole API's routers, named: the compiler then writes `contract`'s declared type by these
 * names rather than spelling out every route (which grew past what it will serialise).
 */
type Routers = {
  tenants: typeof tenantsContract;
  membershipExport: typeof membershipExportContract;
  memberships: typeof membershipsContract;
  invitations: typeof invitationsContract;
  ownershipTransfers: typeof ownershipTransfersContract;
  rosterImports: typeof rosterImportsContract;
  auditEvents: typeof auditEventsContract;
  scimTokens: typeof scimTokensContract;
  scimGroups: typeof scimGroupsContract;
  webhooks: typeof webhooksContract;
  platformWebhooks: typeof platformWebhooksContract;
  users: typeof usersContract;
  guardians: typeof guardiansContract;
  guardianInvitations: typeof guardianInvitationsContract;
  me: typeof meContract;
  health: typeof healthContract;
  joinCodes: typeof joinCodesContract;
  joinRequests: typeof joinRequestsContract;
  domains: typeof domainsContract;
};

/** The whole API. Every route the server serves is declared here, and only here. */
export const contract: Routers = c.router({
  tenants: tenantsContract,
  membershipExport: membershipExportContract,
  memberships: membershipsContract,
  invitations: invitationsContract,
  ownershipTransfers: ownershipTransfersContract,
  rosterImports: rosterImportsContract,
  auditEvents: auditEventsContract,
  scimTokens: scimTokensContract,
  scimGroups: scimGroupsContract,
  webhooks: webhooksContract,
  platformWebhooks: platformWebhooksContract,
  users: usersContract,
  guardians: guardiansContract,
  guardianInvitations: guardianInvitationsContract,
  me: meContract,
  health: healthContract,
  joinCodes: joinCodesContract,
  joinRequests: joinRequestsContract,
  domains: domainsContract,
});
export type Contract = typeof contract;
