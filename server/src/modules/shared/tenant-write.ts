import type { TenantAccess } from '../../access/decide-access.js';
import type { Transaction } from '../../db/database.js';
import type { Statement } from '../../db/fixed-statement.js';
import type { Caller } from '../../identity/caller.js';
import type { AuditContext } from '../audit/audit-context.js';

/**
 * A change under a tenant, as its service receives it: the transaction that holds the tenant's
 * row lock, the access decided under that lock, who makes the change and what its audit event
 * records (pipeline/tenant-transaction.ts opens it, and commits it when the service returns).
 */
export type TenantWrite = {
  tx: Transaction;
  access: TenantAccess;
  caller: Caller;
  audit: AuditContext;
  /**
   * Sends a statement whose answer the change does not need (its audit event; a delete of a row read
   * under the lock) without waiting for it: it reaches PostgreSQL with the COMMIT, one round trip
   * less with the tenant locked. Its failure rolls the transaction back and fails the request
   * (db/pipelined.ts).
   */
  pipeline: (statement: Statement) => void;
};
