import { GUARDIAN_ACTIONS, JOINING_ACTIONS } from './audit-actions-joining.js';

/**
 * The event catalogue: every action the audit trail records, what it names (`target.type`) and
 * what its `before` and `after` hold. docs/audit.md's table is generated from this (`npm run
 * docs:audit`), and a test keeps it current.
 */
export const AUDIT_ACTIONS = {
  'tenant.created': { target: 'tenant', before: 'null', after: 'Tenant', when: 'POST /admin/tenants' },
  'tenant.updated': {
    target: 'tenant',
    before: 'Tenant',
    after: 'Tenant',
    when: 'PATCH /admin/tenants/:tenantId',
  },
  'tenant.deleted': {
    target: 'tenant',
    before: 'Tenant',
    after: 'Tenant (deletedAt set)',
    when: 'DELETE /admin/tenants/:tenantId',
  },
  'tenant.restored': {
    target: 'tenant',
    before: 'Tenant',
    after: 'Tenant',
    when: 'POST /admin/tenants/:tenantId/restore',
  },
  'tenant.purged': {
    target: 'tenant',
    before: 'Tenant',
    after: 'null',
    when: 'the periodic purge or `npm run purge` (actor null)',
  },
  'membership.created': {
    target: 'membership',
    before: 'null',
    after: 'Membership (with `joinedVia` when joined by a code, a request or a verified domain)',
    when: "POST …/memberships, an accepted invitation, a new tenant's OWNER, POST /join, an approved join request, a sign-in at a verified domain of mode join or that domain's verification or change of mode (`joinedVia` says how)",
  },
  'membership.role_changed': {
    target: 'membership',
    before: 'Membership',
    after: 'Membership',
    when: 'PATCH …/memberships/:id changing the role (dates with it), an accepted ownership transfer',
  },
  'membership.terms_changed': {
    target: 'membership',
    before: 'Membership',
    after: 'Membership',
    when: 'PATCH …/memberships/:id changing only startsAt/endsAt',
  },
  'membership.suspended': {
    target: 'membership',
    before: 'Membership',
    after: 'Membership',
    when: 'POST …/memberships/:id/suspend',
  },
  'membership.reactivated': {
    target: 'membership',
    before: 'Membership',
    after: 'Membership',
    when: 'POST …/memberships/:id/reactivate',
  },
  'membership.removed': {
    target: 'membership',
    before: 'Membership',
    after: 'null',
    when: 'DELETE …/memberships/:id, DELETE /admin/users/:userId',
  },
  'membership.directory_updated': {
    target: 'membership',
    before: 'Membership',
    after: 'Membership',
    when: "the tenant's directory (SCIM) taking it over, or changing only its externalId or name",
  },
  'membership.directory_refused': {
    target: 'membership',
    before: 'Membership',
    after: 'Membership (unchanged)',
    when: "the tenant's directory (SCIM) suspending or removing the last ACTIVE OWNER: refused, nothing changed",
  },
  'invitation.created': {
    target: 'invitation',
    before: 'null',
    after: 'Invitation',
    when: 'POST …/invitations',
  },
  'invitation.resent': {
    target: 'invitation',
    before: 'Invitation',
    after: 'Invitation',
    when: 'POST …/invitations/:id/resend',
  },
  'invitation.revoked': {
    target: 'invitation',
    before: 'Invitation',
    after: 'Invitation',
    when: 'POST …/invitations/:id/revoke',
  },
  'invitation.accepted': {
    target: 'invitation',
    before: 'Invitation',
    after: 'Invitation',
    when: 'POST /me/invitations/:id/accept (with membership.created)',
  },
  'invitation.declined': {
    target: 'invitation',
    before: 'Invitation',
    after: 'Invitation',
    when: 'POST /me/invitations/:id/decline',
  },
  'ownership_transfer.created': {
    target: 'ownership_transfer',
    before: 'null',
    after: 'OwnershipTransfer',
    when: 'POST …/ownership-transfers',
  },
  'ownership_transfer.cancelled': {
    target: 'ownership_transfer',
    before: 'OwnershipTransfer',
    after: 'OwnershipTransfer',
    when: 'POST …/ownership-transfers/:id/cancel, or an accept that no longer applies',
  },
  'ownership_transfer.accepted': {
    target: 'ownership_transfer',
    before: 'OwnershipTransfer',
    after: 'OwnershipTransfer',
    when: 'POST /me/ownership-transfers/:id/accept (with two membership.role_changed)',
  },
  'ownership_transfer.declined': {
    target: 'ownership_transfer',
    before: 'OwnershipTransfer',
    after: 'OwnershipTransfer',
    when: 'POST /me/ownership-transfers/:id/decline',
  },
  ...GUARDIAN_ACTIONS,
  'super_admin.granted': {
    target: 'user',
    before: 'SuperAdminFlag',
    after: 'SuperAdminFlag',
    when: '`npm run super-admin -- grant`, SUPER_ADMIN_SUBJECTS at start (actor null)',
  },
  'super_admin.revoked': {
    target: 'user',
    before: 'SuperAdminFlag',
    after: 'SuperAdminFlag',
    when: '`npm run super-admin -- revoke` (actor null)',
  },
  'webhook.created': {
    target: 'webhook',
    before: 'null',
    after: 'Webhook',
    when: 'POST /tenants/:tenantId/webhooks, POST /admin/webhooks',
  },
  'webhook.updated': {
    target: 'webhook',
    before: 'Webhook',
    after: 'Webhook',
    when: 'PATCH …/webhooks/:webhookId',
  },
  'webhook.deleted': {
    target: 'webhook',
    before: 'Webhook',
    after: 'null',
    when: 'DELETE …/webhooks/:webhookId',
  },
  'webhook.secret_rotated': {
    target: 'webhook',
    before: 'Webhook',
    after: 'Webhook',
    when: 'POST …/webhooks/:webhookId/rotate-secret (the secret itself is never recorded)',
  },
  'webhook.disabled': {
    target: 'webhook',
    before: 'Webhook',
    after: 'Webhook (enabled false, disabledReason FAILING)',
    when: 'the delivery worker, after a day without a successful delivery (actor null)',
  },
  'scim_token.created': {
    target: 'scim_token',
    before: 'null',
    after: 'ScimToken',
    when: 'POST /tenants/:tenantId/scim-tokens (the token itself is never recorded)',
  },
  'scim_token.revoked': {
    target: 'scim_token',
    before: 'ScimToken',
    after: 'null',
    when: 'DELETE /tenants/:tenantId/scim-tokens/:scimTokenId',
  },
  'scim_group.created': {
    target: 'scim_group',
    before: 'null',
    after: 'ScimGroupSummary',
    when: "POST …/scim/v2/Groups (the tenant's directory)",
  },
  'scim_group.updated': {
    target: 'scim_group',
    before: 'ScimGroupSummary',
    after: 'ScimGroupSummary',
    when: 'PUT or PATCH …/scim/v2/Groups/:id (name, externalId, members)',
  },
  'scim_group.deleted': {
    target: 'scim_group',
    before: 'ScimGroupSummary',
    after: 'null',
    when: 'DELETE …/scim/v2/Groups/:id',
  },
  'scim_group.role_mapped': {
    target: 'scim_group',
    before: 'ScimGroupSummary',
    after: 'ScimGroupSummary',
    when: 'PUT or DELETE /tenants/:tenantId/scim-groups/:groupId/role',
  },
  ...JOINING_ACTIONS,
  'user.erased': { target: 'user', before: 'null', after: 'ErasedUser', when: 'DELETE /admin/users/:userId' },
} as const satisfies Record<string, { target: string; before: string; after: string; when: string }>;

export type AuditAction = keyof typeof AUDIT_ACTIONS;
export const AUDIT_ACTION_NAMES = Object.keys(AUDIT_ACTIONS) as [AuditAction, ...AuditAction[]];
export const AUDIT_TARGET_TYPES = [
  'tenant',
  'membership',
  'invitation',
  'ownership_transfer',
  'user',
  'webhook',
  'scim_token',
  'scim_group',
  'join_code',
  'join_request',
  'domain',
  'guardian_link',
  'pairing_code',
  'guardian_invitation',
] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];
