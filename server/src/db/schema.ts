/**
 * The database schema, one file per part of the service (drizzle-kit reads this file's exports):
 * people and their memberships, request bookkeeping, history (audit trail and webhooks), rosters,
 * the directory's (SCIM) tokens and groups, joining (codes, requests, blocks, domains and whom they joined).
 */
export * from './schema/guardians.js';
export * from './schema/history.js';
export * from './schema/joining.js';
export * from './schema/people.js';
export * from './schema/requests.js';
export * from './schema/rosters.js';
export * from './schema/scim.js';

import type { guardianInvitations, guardianLinks, pairingCodes } from './schema/guardians.js';
import type { auditEvents, webhookDeliveries, webhookEndpoints } from './schema/history.js';
import type { invitations, ownershipTransfers, tenantMemberships, tenants, users } from './schema/people.js';
import type { rosterImports } from './schema/rosters.js';

export type UserRow = typeof users.$inferSelect;
export type TenantRow = typeof tenants.$inferSelect;
export type InvitationRow = typeof invitations.$inferSelect;
export type AuditEventRow = typeof auditEvents.$inferSelect;
export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type OwnershipTransferRow = typeof ownershipTransfers.$inferSelect;
export type RosterImportRow = typeof rosterImports.$inferSelect;
export type GuardianLinkRow = typeof guardianLinks.$inferSelect;
export type PairingCodeRow = typeof pairingCodes.$inferSelect;
export type GuardianInvitationRow = typeof guardianInvitations.$inferSelect;
/**
 * A membership as the service reads it: `search` is for the database's index alone, `scim_name`
 * for the directory's reads alone (modules/scim).
 */
export type MembershipRow = Omit<typeof tenantMemberships.$inferSelect, 'search' | 'scimName'>;
