import type { Request } from 'express';
import { lockTenantForDirectory } from '../access/access.repository.js';
import type { Database, Transaction } from '../db/database.js';
import { ServiceUnavailableError, UnauthenticatedError } from '../errors/index.js';

/**
 * A change by the tenant's directory (SCIM), in one transaction that locks the tenant's row as
 * every membership write does (tenant-transaction.ts): the rules it checks (the last ACTIVE
 * OWNER, who is in which group) read a picture nobody changes before the commit, whether the
 * other writer is a person or a second token of the same directory. Like a tenant write, it
 * begins once the body is whole, and rolls back when its answer can no longer be its own.
 */
export async function inDirectoryTransaction<T>(
  db: Database,
  req: Request,
  tenantId: string,
  work: (tx: Transaction) => Promise<T>,
): Promise<T> {
  const { end } = req.state;
  const tooLate = () =>
    new ServiceUnavailableError('The request took too long; the database may be unreachable');
  if (end.ended) throw tooLate();
  return db.transaction(async (tx) => {
    // Deleted since its token was checked: the token opens nothing any more.
    if (!(await lockTenantForDirectory(tx, tenantId))) throw new UnauthenticatedError();
    if (end.ended) throw tooLate();
    const value = await work(tx);
    if (end.ended) throw tooLate();
    return value;
  });
}
