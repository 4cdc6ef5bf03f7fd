import type { ScimToken } from '@tms/contract';
import type { ScimTokenRow } from './scim-tokens.repository.js';

export const toScimTokenDto = (row: ScimTokenRow): ScimToken => ({
  scimTokenId: row.id,
  description: row.description,
  createdAt: row.createdAt.toISOString(),
  expiresAt: row.expiresAt?.toISOString() ?? null,
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
});
