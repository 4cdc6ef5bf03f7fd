import type { ScimCaller } from '../../access/scim-token.repository.js';
import type { Executor } from '../../db/database.js';
import type { AuditContext } from '../audit/audit-context.js';

/**
 * A request of the tenant's directory (SCIM), as its service receives it: where it runs (the
 * database for a read; for a change, the transaction that holds the tenant's lock, opened by
 * pipeline/directory-transaction.ts), which token sent it, what its events record as the actor,
 * and the tenant's SCIM base URL (for `meta.location`).
 */
export type DirectoryRequest = { db: Executor; directory: ScimCaller; audit: AuditContext; baseUrl: string };
