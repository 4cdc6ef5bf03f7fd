import type { CreateScimTokenBody, NewScimToken, ScimToken } from '@tms/contract';
import { v7 as uuidv7 } from 'uuid';
import { type Requester, readAsCaller } from '../../access/read-as-caller.js';
import { newScimTokenSecret, scimTokenHashOf } from '../../auth/scim-token-secret.js';
import type { Database } from '../../db/database.js';
import { ScimTokenNotFoundError } from '../../errors/index.js';
import { recordAuditEvent } from '../audit/audit-events.repository.js';
import type { TenantWrite } from '../shared/tenant-write.js';
import { toScimTokenDto } from './scim-tokens.dto.js';
import { deleteScimToken, insertScimToken, listScimTokensAs } from './scim-tokens.repository.js';

/*
 * A tenant's SCIM tokens, made and revoked by its OWNERs and ADMINs in the tenant's transaction,
 * each change with its event (the secret is never recorded: only the token's id and description).
 */

export async function createScimToken(
  { tx, access, audit }: TenantWrite,
  body: CreateScimTokenBody,
  baseUrl: string,
): Promise<NewScimToken> {
  const token = newScimTokenSecret();
  const row = await insertScimToken(tx, {
    id: uuidv7(),
    tenantId: access.tenantId,
    tokenHash: scimTokenHashOf(token),
    description: body?.description ?? null,
    expiresAt: body?.expiresAt ? new Date(body.expiresAt) : null,
  });
  const dto = toScimTokenDto(row);
  await recordAuditEvent(tx, {
    tenantId: access.tenantId,
    action: 'scim_token.created',
    target: { type: 'scim_token', id: row.id },
    before: null,
    after: dto,
    context: audit,
  });
  return { ...dto, token, baseUrl };
}

export async function listScimTokens(db: Database, requester: Requester): Promise<ScimToken[]> {
  const tenantId = requester.tenantId;
  if (tenantId === undefined) throw new Error('a tenant route without a tenant');
  const { items } = await readAsCaller(db, requester, (subject) => listScimTokensAs(db, subject, tenantId));
  return items.map(toScimTokenDto);
}

export async function revokeScimToken(
  { tx, access, audit }: TenantWrite,
  scimTokenId: string,
): Promise<void> {
  const row = await deleteScimToken(tx, access.tenantId, scimTokenId);
  if (!row) throw new ScimTokenNotFoundError(scimTokenId);
  await recordAuditEvent(tx, {
    tenantId: access.tenantId,
    action: 'scim_token.revoked',
    target: { type: 'scim_token', id: row.id },
    before: toScimTokenDto(row),
    after: null,
    context: audit,
  });
}
