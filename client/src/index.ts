export type {
  CreateMembershipBody,
  CreateTenantBody,
  Me,
  Membership,
  ResponseCode,
  Role,
  Tenant,
  UpdateMembershipBody,
  UpdateTenantBody,
  UserSummary,
} from '@tms/contract';
export { contract, ROLE_LEVEL, ROLES } from '@tms/contract';
export { type Client, createClient, type Page } from './client.js';
export { ApiError, type ErrorCodes, isApiError, NetworkError } from './errors.js';
export { type ClientOptions, createRawClient, type RawClient, type TokenSource } from './raw-client.js';
