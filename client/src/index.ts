export type {
  AuditAction,
  AuditEvent,
  CreateInvitationBody,
  CreateMembershipBody,
  CreateOwnershipTransferBody,
  CreateTenantBody,
  CreateWebhookBody,
  ErasedUser,
  Invitation,
  InvitationStatus,
  Me,
  Membership,
  MembershipStatus,
  MyInvitation,
  OwnershipTransfer,
  ResponseCode,
  Role,
  SuspendMembershipBody,
  Tenant,
  TenantStatus,
  TransferStatus,
  UpdateMembershipBody,
  UpdateTenantBody,
  UpdateWebhookBody,
  UserSummary,
  Webhook,
  WebhookDelivery,
  WebhookDeliveryStatus,
  WebhookWithSecret,
} from '@tms/contract';
// Bundlers keep only what is used (both packages are free of side effects): the roles cost a few
// bytes, and `contract` and `createRawClient` (zod, ts-rest) nothing unless imported. Browser
// apps should take those two from `@tms/client/raw`; they stay here for existing imports.
export { contract, ROLE_LEVEL, ROLES } from '@tms/contract';
export { type Client, createClient, type Page, type QueryOf } from './client.js';
export { ApiError, type ApiErrorContext, type ErrorCodes, isApiError, NetworkError } from './errors.js';
export type {
  CallOptions,
  ChangeOptions,
  ClientOptions,
  CreateOptions,
  FetchFunction,
  RawClientOptions,
  RequestEvent,
  ResponseEvent,
  RetryOptions,
  TokenSource,
} from './options.js';
export { createRawClient, type RawClient } from './raw-client.js';
