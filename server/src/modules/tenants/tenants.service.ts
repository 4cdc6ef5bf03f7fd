import type { CreateTenantBody, ListTenantsQuery, UpdateTenantBody } from '@tms/contract';
import { v7 as uuidv7 } from 'uuid';
import { parsedAfterAccess, type Requester, readAsCaller } from '../../access/read-as-caller.js';
import type { Database, Executor } from '../../db/database.js';
import { isUniqueViolation } from '../../db/db-errors.js';
import type { TenantRow } from '../../db/schema.js';
import { TenantNotFoundError, TenantSlugTakenError } from '../../errors/index.js';
import { decodeCursor, type Page, toPage } from '../../pagination/cursor.js';
import type { AuditContext } from '../audit/audit-context.js';
import { recordMembershipEvent } from '../memberships/membership-events.js';
import { insertMembership } from '../memberships/memberships.repository.js';
import { assertIfMatch } from '../shared/if-match.js';
import { getOrInviteUser } from '../users/users.service.js';
import { markTenantDeleted } from './tenant-deletion.repository.js';
import { recordTenantEvent } from './tenant-events.js';
import type { TenantRetention } from './tenant-retention.js';
import {
  findTenantAs,
  findTenantForUpdate,
  insertTenant,
  listTenantsAs,
  updateTenant,
} from './tenants.repository.js';

const SLUG_KEY = 'tenants_slug_key';

/** Who changes tenants and how their events show them (purgeAfter depends on the retention). */
export type TenantChange = { audit: AuditContext; retention: TenantRetention };

/** A tenant is never without an OWNER, from its first instant: both rows go in one transaction. */
export async function createTenant(
  db: Database,
  { audit, retention }: TenantChange,
  input: CreateTenantBody,
): Promise<TenantRow> {
  try {
    return await db.transaction(async (tx) => {
      const owner = await getOrInviteUser(tx, input.owner, 'body.owner.email');
      const tenant = await insertTenant(tx, { id: uuidv7(), slug: input.slug, name: input.name });
      const invitedDisplayName = 'email' in input.owner ? (input.owner.displayName ?? null) : null;
      const membership = await insertMembership(tx, {
        tenantId: tenant.id,
        userId: owner.id,
        role: 'OWNER',
        invitedDisplayName,
      });
      await recordTenantEvent(tx, audit, retention, 'tenant.created', null, tenant);
      const user = { email: owner.email, displayName: owner.displayName };
      await recordMembershipEvent(tx, audit, 'membership.created', null, {
        ...membership,
        status: 'ACTIVE',
        user,
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
  change: TenantChange,
  tenantId: string,
  changes: UpdateTenantBody,
  ifMatch: string | undefined,
): Promise<TenantRow> {
  try {
    return await changingTenant(db, change, tenantId, ifMatch, 'tenant.updated', (tx) =>
      updateTenant(tx, tenantId, changes),
    );
  } catch (error) {
    if (changes.slug && isUniqueViolation(error, SLUG_KEY)) throw new TenantSlugTakenError(changes.slug);
    throw error;
  }
}

/**
 * Deletes softly: the tenant is marked, and every route treats it as missing from then on, but
 * nothing of it is lost until the purge (see tenant-deletion.service.ts), so that a deletion made
 * by mistake can be undone with everything the tenant held.
 */
export async function removeTenant(
  db: Database,
  change: TenantChange,
  tenantId: string,
  ifMatch: string | undefined,
): Promise<void> {
  await changingTenant(db, change, tenantId, ifMatch, 'tenant.deleted', (tx) =>
    markTenantDeleted(tx, tenantId),
  );
}

/**
 * Runs a change to one tenant with its audit event: the tenant is locked and read first (the
 * event's `before`, and the version If-Match is compared with), so nobody changes it in between.
 */
function changingTenant(
  db: Database,
  { audit, retention }: TenantChange,
  tenantId: string,
  ifMatch: string | undefined,
  action: 'tenant.updated' | 'tenant.deleted',
  change: (db: Executor) => Promise<TenantRow | undefined>,
): Promise<TenantRow> {
  return db.transaction(async (tx) => {
    const before = await getTenantForUpdate(tx, tenantId);
    assertIfMatch(ifMatch, before.version);
    const after = await change(tx);
    if (!after) throw new TenantNotFoundError(tenantId);
    await recordTenantEvent(tx, audit, retention, action, before, after);
    return after;
  });
}

async function getTenantForUpdate(db: Executor, tenantId: string): Promise<TenantRow> {
  const tenant = await findTenantForUpdate(db, tenantId);
  if (!tenant) throw new TenantNotFoundError(tenantId);
  return tenant;
}
