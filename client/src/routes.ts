import type { Contract } from '@tms/contract';
import type { AppRoute } from '@ts-rest/core';

/** Each route of a router as its method and path only, typed by the route's own literals. */
export type RouteTable<T> = {
  readonly [K in keyof T]: T[K] extends AppRoute
    ? { readonly method: T[K]['method']; readonly path: T[K]['path'] }
    : RouteTable<T[K]>;
};

/**
 * Method and path of every route, the only runtime knowledge of the contract that the SDK needs:
 * the contract's zod schemas validate on the server and never run in a browser, so they are kept
 * out of the SDK's bundle. `satisfies` holds this table to the contract: a wrong path or method,
 * a missing route or one the contract does not have fails to compile (and client/test/routes.test.ts
 * compares it with the contract at run time too).
 */
export const routes = {
  tenants: {
    create: { method: 'POST', path: '/admin/tenants' },
    list: { method: 'GET', path: '/admin/tenants' },
    get: { method: 'GET', path: '/admin/tenants/:tenantId' },
    update: { method: 'PATCH', path: '/admin/tenants/:tenantId' },
    remove: { method: 'DELETE', path: '/admin/tenants/:tenantId' },
    restore: { method: 'POST', path: '/admin/tenants/:tenantId/restore' },
  },
  membershipExport: {
    export: { method: 'GET', path: '/tenants/:tenantId/memberships/export' },
  },
  memberships: {
    list: { method: 'GET', path: '/tenants/:tenantId/memberships' },
    get: { method: 'GET', path: '/tenants/:tenantId/memberships/:tenantMembershipId' },
    create: { method: 'POST', path: '/tenants/:tenantId/memberships' },
    update: { method: 'PATCH', path: '/tenants/:tenantId/memberships/:tenantMembershipId' },
    remove: { method: 'DELETE', path: '/tenants/:tenantId/memberships/:tenantMembershipId' },
    suspend: { method: 'POST', path: '/tenants/:tenantId/memberships/:tenantMembershipId/suspend' },
    reactivate: { method: 'POST', path: '/tenants/:tenantId/memberships/:tenantMembershipId/reactivate' },
  },
  rosterImports: {
    create: { method: 'POST', path: '/tenants/:tenantId/roster-imports' },
    get: { method: 'GET', path: '/tenants/:tenantId/roster-imports/:importId' },
  },
  invitations: {
    create: { method: 'POST', path: '/tenants/:tenantId/invitations' },
    list: { method: 'GET', path: '/tenants/:tenantId/invitations' },
    get: { method: 'GET', path: '/tenants/:tenantId/invitations/:invitationId' },
    resend: { method: 'POST', path: '/tenants/:tenantId/invitations/:invitationId/resend' },
    revoke: { method: 'POST', path: '/tenants/:tenantId/invitations/:invitationId/revoke' },
    listMine: { method: 'GET', path: '/me/invitations' },
    accept: { method: 'POST', path: '/me/invitations/:invitationId/accept' },
    decline: { method: 'POST', path: '/me/invitations/:invitationId/decline' },
  },
  joinCodes: {
    create: { method: 'POST', path: '/tenants/:tenantId/join-codes' },
    list: { method: 'GET', path: '/tenants/:tenantId/join-codes' },
    rotate: { method: 'POST', path: '/tenants/:tenantId/join-codes/:joinCodeId/rotate' },
    revoke: { method: 'DELETE', path: '/tenants/:tenantId/join-codes/:joinCodeId' },
    join: { method: 'POST', path: '/join' },
    preview: { method: 'GET', path: '/join/:code' },
  },
  domains: {
    create: { method: 'POST', path: '/tenants/:tenantId/domains' },
    list: { method: 'GET', path: '/tenants/:tenantId/domains' },
    get: { method: 'GET', path: '/tenants/:tenantId/domains/:domainId' },
    update: { method: 'PATCH', path: '/tenants/:tenantId/domains/:domainId' },
    remove: { method: 'DELETE', path: '/tenants/:tenantId/domains/:domainId' },
    verify: { method: 'POST', path: '/admin/domains/:domainId/verify' },
  },
  joinRequests: {
    list: { method: 'GET', path: '/tenants/:tenantId/join-requests' },
    approve: { method: 'POST', path: '/tenants/:tenantId/join-requests/:joinRequestId/approve' },
    reject: { method: 'POST', path: '/tenants/:tenantId/join-requests/:joinRequestId/reject' },
    block: { method: 'POST', path: '/tenants/:tenantId/join-requests/:joinRequestId/block' },
    unblock: { method: 'DELETE', path: '/tenants/:tenantId/join-blocks/:userId' },
    listMine: { method: 'GET', path: '/me/join-requests' },
    cancel: { method: 'POST', path: '/me/join-requests/:joinRequestId/cancel' },
  },
  ownershipTransfers: {
    create: { method: 'POST', path: '/tenants/:tenantId/ownership-transfers' },
    get: { method: 'GET', path: '/tenants/:tenantId/ownership-transfers/:transferId' },
    cancel: { method: 'POST', path: '/tenants/:tenantId/ownership-transfers/:transferId/cancel' },
    listMine: { method: 'GET', path: '/me/ownership-transfers' },
    accept: { method: 'POST', path: '/me/ownership-transfers/:transferId/accept' },
    decline: { method: 'POST', path: '/me/ownership-transfers/:transferId/decline' },
  },
  auditEvents: {
    listForTenant: { method: 'GET', path: '/tenants/:tenantId/audit-events' },
    listAll: { method: 'GET', path: '/admin/audit-events' },
  },
  scimTokens: {
    create: { method: 'POST', path: '/tenants/:tenantId/scim-tokens' },
    list: { method: 'GET', path: '/tenants/:tenantId/scim-tokens' },
    revoke: { method: 'DELETE', path: '/tenants/:tenantId/scim-tokens/:scimTokenId' },
  },
  scimGroups: {
    list: { method: 'GET', path: '/tenants/:tenantId/scim-groups' },
    setRole: { method: 'PUT', path: '/tenants/:tenantId/scim-groups/:groupId/role' },
    unmapRole: { method: 'DELETE', path: '/tenants/:tenantId/scim-groups/:groupId/role' },
  },
  webhooks: {
    create: { method: 'POST', path: '/tenants/:tenantId/webhooks' },
    list: { method: 'GET', path: '/tenants/:tenantId/webhooks' },
    get: { method: 'GET', path: '/tenants/:tenantId/webhooks/:webhookId' },
    update: { method: 'PATCH', path: '/tenants/:tenantId/webhooks/:webhookId' },
    remove: { method: 'DELETE', path: '/tenants/:tenantId/webhooks/:webhookId' },
    rotateSecret: { method: 'POST', path: '/tenants/:tenantId/webhooks/:webhookId/rotate-secret' },
    listDeliveries: { method: 'GET', path: '/tenants/:tenantId/webhooks/:webhookId/deliveries' },
    retryDelivery: {
      method: 'POST',
      path: '/tenants/:tenantId/webhooks/:webhookId/deliveries/:deliveryId/retry',
    },
  },
  platformWebhooks: {
    create: { method: 'POST', path: '/admin/webhooks' },
    list: { method: 'GET', path: '/admin/webhooks' },
    get: { method: 'GET', path: '/admin/webhooks/:webhookId' },
    update: { method: 'PATCH', path: '/admin/webhooks/:webhookId' },
    remove: { method: 'DELETE', path: '/admin/webhooks/:webhookId' },
    rotateSecret: { method: 'POST', path: '/admin/webhooks/:webhookId/rotate-secret' },
    listDeliveries: { method: 'GET', path: '/admin/webhooks/:webhookId/deliveries' },
    retryDelivery: { method: 'POST', path: '/admin/webhooks/:webhookId/deliveries/:deliveryId/retry' },
  },
  users: {
    erase: { method: 'DELETE', path: '/admin/users/:userId' },
  },
  guardians: {
    createPairingCode: { method: 'POST', path: '/tenants/:tenantId/students/:userId/pairing-codes' },
    listStudentGuardians: { method: 'GET', path: '/tenants/:tenantId/students/:userId/guardians' },
    listLinks: { method: 'GET', path: '/tenants/:tenantId/guardian-links' },
    removeLink: { method: 'DELETE', path: '/tenants/:tenantId/guardian-links/:guardianLinkId' },
    accessOf: { method: 'GET', path: '/tenants/:tenantId/access/:userId' },
    redeem: { method: 'POST', path: '/me/guardian-links' },
    listWards: { method: 'GET', path: '/me/wards' },
    listMyGuardians: { method: 'GET', path: '/me/guardians' },
  },
  guardianInvitations: {
    create: { method: 'POST', path: '/tenants/:tenantId/students/:userId/guardian-invitations' },
    list: { method: 'GET', path: '/tenants/:tenantId/guardian-invitations' },
    revoke: { method: 'POST', path: '/tenants/:tenantId/guardian-invitations/:guardianInvitationId/revoke' },
    listMine: { method: 'GET', path: '/me/guardian-invitations' },
    accept: { method: 'POST', path: '/me/guardian-invitations/:guardianInvitationId/accept' },
    decline: { method: 'POST', path: '/me/guardian-invitations/:guardianInvitationId/decline' },
  },
  me: {
    get: { method: 'GET', path: '/me' },
  },
  health: {
    live: { method: 'GET', path: '/health/live' },
    ready: { method: 'GET', path: '/health/ready' },
    report: { method: 'GET', path: '/health' },
  },
} as const satisfies RouteTable<Contract>;
