import { AppError } from './app-error.js';

export class TenantNotFoundError extends AppError {
  readonly code = 'TENANT_NOT_FOUND';
  constructor(tenantId: string) {
    super(`Tenant ${tenantId} does not exist`);
  }
}

export class MembershipNotFoundError extends AppError {
  readonly code = 'MEMBERSHIP_NOT_FOUND';
  constructor(membershipId: string) {
    super(`Membership ${membershipId} does not exist in this tenant`);
  }
}

export class UserNotFoundError extends AppError {
  readonly code = 'USER_NOT_FOUND';
  constructor(userId: string) {
    super(`User ${userId} does not exist`);
  }
}

export class InvitationNotFoundError extends AppError {
  readonly code = 'INVITATION_NOT_FOUND';
  constructor(invitationId: string) {
    super(`Invitation ${invitationId} does not exist here`);
  }
}

export class TransferNotFoundError extends AppError {
  readonly code = 'TRANSFER_NOT_FOUND';
  constructor(transferId: string) {
    super(`Ownership transfer ${transferId} does not exist here`);
  }
}

export class WebhookNotFoundError extends AppError {
  readonly code = 'WEBHOOK_NOT_FOUND';
  constructor(webhookId: string) {
    super(`Webhook endpoint ${webhookId} does not exist here`);
  }
}

export class WebhookDeliveryNotFoundError extends AppError {
  readonly code = 'WEBHOOK_DELIVERY_NOT_FOUND';
  constructor(deliveryId: string) {
    super(`Delivery ${deliveryId} does not exist for this endpoint`);
  }
}

export class RosterImportNotFoundError extends AppError {
  readonly code = 'ROSTER_IMPORT_NOT_FOUND';
  constructor(importId: string) {
    super(`Roster import ${importId} does not exist in this tenant`);
  }
}

export class ScimTokenNotFoundError extends AppError {
  readonly code = 'SCIM_TOKEN_NOT_FOUND';
  constructor(scimTokenId: string) {
    super(`SCIM token ${scimTokenId} does not exist here`);
  }
}

export class ScimGroupNotFoundError extends AppError {
  readonly code = 'SCIM_GROUP_NOT_FOUND';
  constructor(groupId: string) {
    super(`SCIM group ${groupId} does not exist here`);
  }
}
