import type { CreateTenantBody, ListTenantsQuery, UpdateTenantBody } from '@tms/contract';
import { v7 as uuidv7 } from 'uuid';
import { parsedAfterAccess, type Requester, readAsCaller } from '../../access/read-as-caller.js';
import type { Database, Executor } from '../../db/database.js';
import { isUniqueViolation } from '../../db/db-errors.js';
import type { TenantRow } from '../../db/schema.js';
import { TenantNotFoundError, TenantSlugTakenError } from '../../errors/index.js';
import { decodeCursor, type Page, toPage } from '../../pagination/cursor.js';
import { insertMembership } from '../memberships/memberships.repository.js';
import { assertIfMatch } from '../shared/if-match.js';
import { getOrInviteUser } from '../users/users.service.js';
import { markTenantDeleted } from './tenant-deletion.repository.js';
import {
  findTenantAs,
  findTenantForUpdate,
  insertTenant,
  listTenantsAs,
  updateTenant,
} from './tenants.repository.js';

const SLUG_KEY = 'tenants_slug_key';

/** A tenant is never without an OWNER, from its first instant: both rows go in one transaction. */
export async function createTenant(db: Database, input: CreateTenantBody): Promise<TenantRow> {
  try {
    return await db.transaction(async (tx) => {
      const owner = await getOrInviteUser(tx, input.owner, 'body.owner.email');
      const tenant = await insertTenant(tx, { id: uuidv7(), slug: input.slug, name: input.name });
      const invitedDisplayName = 'email' in input.owner ? (input.owner.displayName ?? null) : null;
      await insertMembership(tx, {
        tenantId: tenant.id,
        userId: owner.id,
        role: 'OWNER',
        invitedDisplayName,
      });
      return tenant;
    });
  } catch (error) {
    if (isUniqueViolation(error, SLUG_KEY)) throw new TenantSlugTakenError(input.slug);
    throw error;
  }
}

export async function getTenant(db: Database, requester: Requester, tenantId: string): Promise<TenantRow> {
  const { items } = await readAsCaller(db, requester, (subject) => findTenantAs(db, subject, tenantId));
  const [tenant] = items;
  if (!tenant) throw new TenantNotFoundError(tenantId);
  return tenant;
}

export async function listTenantsPage(
  db: Database,
  requester: Requester,
  query: ListTenantsQuery,
): Promise<Page<TenantRow>> {
  const afterId = await parsedAfterAccess(db, requester, () => decodeCursor(query.cursor));
  const { items } = await readAsCaller(db, requester, (subject) =>
    listTenantsAs(db, subject, { afterId, q: query.q, status: query.status, limit: query.limit + 1 }),
  );
  return toPage(items, query.limit);
}

export async function renameTenant(
  db: Database,
  tenantId: string,
  changes: UpdateTenantBody,
  ifMatch: string | undefined,
): Promise<TenantRow> {
  let tenant: TenantRow | undefined;
  try {
    tenant = await checkingIfMatch(db, tenantId, ifMatch, (tx) => updateTenant(tx, tenantId, changes));
  } catch (error) {
    if (changes.slug && isUniqueViolation(error, SLUG_KEY)) throw new TenantSlugTakenError(changes.slug);
    throw error;
  }
  if (!tenant) throw new TenantNotFoundError(tenantId);
  return tenant;
}

/**
 * Deletes softly: the tenant is marked, and every route treats it as missing from then on, but
 * nothing of it is lost until the purge (see tenant-deletion.service.ts), so that a deletion made
 * by mistake can be undone with everything the tenant held.
 */
export async function removeTenant(
  db: Database,
  tenantId: string,
  ifMatch: string | undefined,
): Promise<void> {
  if (!(await checkingIfMatch(db, tenantId, ifMatch, (tx) => markTenantDeleted(tx, tenantId))))
    throw new TenantNotFoundError(tenantId);
}

/**
 * Runs a change to one tenant. Without If-Match it is the change's one statement; with it, the
 * tenant is locked and its version compared first, so that nobody changes it in between.
 */
function checkingIfMatch<T>(
  db: Database,
  tenantId: string,
  ifMatch: string | undefined,
  change: (db: Executor) => Promise<T>,
): Promise<T> {
  if (ifMatch === undefined) return change(db);
  return db.transaction(async (tx) => {
    assertIfMatch(ifMatch, (await getTenantForUpdate(tx, tenantId)).version);
    return change(tx);
  });
}

async function getTenantForUpdate(db: Executor, tenantId: string): Promise<TenantRow> {
  const tenant = await findTenantForUpdate(db, tenantId);
  if (!tenant) throw new TenantNotFoundError(tenantId);
  return tenant;
}
