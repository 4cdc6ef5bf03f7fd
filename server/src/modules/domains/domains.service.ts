import { isIP } from 'node:net';
import type { CreateDomainBody, ListDomainsQuery, Role, UpdateDomainBody } from '@tms/contract';
import { lockLiveTenant } from '../../access/access.repository.js';
import { parsedAfterAccess, type Requester, readAsCaller } from '../../access/read-as-caller.js';
import type { Database } from '../../db/database.js';
import { isUniqueViolation } from '../../db/db-errors.js';
import { DomainAlreadyClaimedError, DomainNotFoundError, ValidationFailedError } from '../../errors/index.js';
import type { Caller } from '../../identity/caller.js';
import { canonicalDomain, canonicalEmail, domainOfCanonicalEmail } from '../../identity/email-address.js';
import { decodeCursor, type Page, toPage } from '../../pagination/cursor.js';
import { domainCovers, domainNameProblem, domainRoleProblem } from '../../rules/domain-rules.js';
import { refuse } from '../../rules/problems.js';
import type { AuditContext } from '../audit/audit-context.js';
import type { TenantWrite } from '../shared/tenant-write.js';
import { recordDomainEvent } from './domain-events.js';
import { applyDomain } from './domain-joins.service.js';
import {
  type DomainView,
  deleteDomain,
  findDomainAs,
  findDomainInTenant,
  insertDomain,
  listDomainsAs,
  markDomainVerified,
  tenantOfDomain,
  updateDomain,
} from './domains.repository.js';

/** An address in brackets or with a trailing dot is still an address. */
const isIpAddress = (given: string) => isIP(given.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '')) !== 0;

/** The canonical domain a request names, or its refusal (400, naming the field). */
function acceptableDomain(given: string): string {
  const canonical = isIpAddress(given) ? undefined : canonicalDomain(given);
  const problem =
    canonical === undefined
      ? isIpAddress(given)
        ? 'is an IP address, not a domain'
        : 'is not a valid domain name'
      : domainNameProblem(canonical);
  if (problem !== undefined || canonical === undefined)
    throw new ValidationFailedError([{ path: 'body.domain', message: problem ?? 'not valid' }]);
  return canonical;
}

/**
 * Whether the caller's own address is at the domain. Only verified addresses are ever stored for
 * a person who signs in (identity/identify.ts), so it shows the caller receives mail there.
 */
function callerProves(caller: Caller, domain: { domain: string; includeSubdomains: boolean }): boolean {
  const canonical = caller.email === null ? undefined : canonicalEmail(caller.email);
  return canonical !== undefined && domainCovers(domain, domainOfCanonicalEmail(canonical));
}

type NewDomain = Required<Pick<CreateDomainBody, 'role' | 'includeSubdomains'>> & CreateDomainBody;

export async function createDomain(
  { tx, access, audit, caller }: TenantWrite,
  body: NewDomain,
): Promise<DomainView> {
  const domain = acceptableDomain(body.domain);
  refuse(domainRoleProblem(access.level, body.role));
  const proven = callerProves(caller, { domain, includeSubdomains: body.includeSubdomains });
  const created = await insertDomain(tx, {
    tenantId: access.tenantId,
    domain,
    mode: body.mode,
    role: body.role,
    includeSubdomains: body.includeSubdomains,
    createdBy: caller.userId,
    verifiedBy: proven ? caller.userId : null,
  });
  if (!created) throw new DomainAlreadyClaimedError(domain);
  await recordDomainEvent(tx, audit, 'domain.created', null, created);
  // Verified at once: the people already known at it join (or ask) now, not at their next new address.
  await applyDomain(tx, audit, created, 'everyone');
  return created;
}

export async function listDomainsPage(
  db: Database,
  requester: Requester,
  query: ListDomainsQuery,
): Promise<Page<DomainView>> {
  const tenantId = requester.tenantId;
  if (tenantId === undefined) throw new Error('a domain route without a tenant');
  const afterId = await parsedAfterAccess(db, requester, () => decodeCursor(query.cursor));
  const { items } = await readAsCaller(db, requester, (subject) =>
    listDomainsAs(db, subject, { tenantId, afterId, limit: query.limit + 1 }),
  );
  return toPage(items, query.limit);
}

export async function getDomain(db: Database, requester: Requester, domainId: string): Promise<DomainView> {
  const tenantId = requester.tenantId;
  if (tenantId === undefined) throw new Error('a domain route without a tenant');
  const { items } = await readAsCaller(db, requester, (subject) =>
    findDomainAs(db, subject, tenantId, domainId),
  );
  const [found] = items;
  if (!found) throw new DomainNotFoundError(domainId);
  return found;
}

/** The tenant's domain, when the caller may manage its role (a TEACHER domain: an OWNER only). */
async function domainToChange({ tx, access }: TenantWrite, domainId: string): Promise<DomainView> {
  const found = await findDomainInTenant(tx, access.tenantId, domainId);
  if (!found) throw new DomainNotFoundError(domainId);
  refuse(domainRoleProblem(access.level, found.role));
  return found;
}

/**
 * A new mode applies to the people the domain has not reached yet (none, once it applied at its
 * verification; any it could not reach then). A new role is for those it reaches from now on:
 * memberships and requests it made keep theirs, as any membership keeps the role it was given.
 */
export async function changeDomain(
  write: TenantWrite,
  domainId: string,
  body: UpdateDomainBody,
): Promise<DomainView> {
  const before = await domainToChange(write, domainId);
  const role: Role | undefined = body.role;
  if (role !== undefined) refuse(domainRoleProblem(write.access.level, role));
  const after = await updateDomain(write.tx, write.access.tenantId, domainId, {
    ...(body.mode !== undefined && { mode: body.mode }),
    ...(role !== undefined && { role }),
  });
  await recordDomainEvent(write.tx, write.audit, 'domain.updated', before, after);
  if (after.mode !== before.mode) await applyDomain(write.tx, write.audit, after, 'everyone');
  return after;
}

/** Memberships and requests the domain made stay: they are the tenant's now, as anyone's added by hand. */
export async function removeDomain(write: TenantWrite, domainId: string): Promise<void> {
  const before = await domainToChange(write, domainId);
  await deleteDomain(write.tx, write.access.tenantId, domainId);
  await recordDomainEvent(write.tx, write.audit, 'domain.removed', before, null);
}

/**
 * A super administrator's verification, under the lock of the domain's tenant as any change of
 * what the tenant holds. A domain another tenant verified breaks the unique index: 409. The people
 * already known at the domain join (or ask) in the same transaction.
 */
export async function verifyDomain(
  db: Database,
  audit: AuditContext,
  caller: Caller,
  domainId: string,
): Promise<DomainView> {
  try {
    return await db.transaction(async (tx) => {
      const tenantId = await tenantOfDomain(tx, domainId);
      if (tenantId === undefined || !(await lockLiveTenant(tx, tenantId)))
        throw new DomainNotFoundError(domainId);
      const before = await findDomainInTenant(tx, tenantId, domainId);
      if (!before) throw new DomainNotFoundError(domainId);
      if (before.verifiedAt !== null) return before;
      const after = await markDomainVerified(tx, tenantId, domainId, caller.userId);
      await recordDomainEvent(tx, audit, 'domain.verified', before, after);
      await applyDomain(tx, audit, after, 'everyone');
      return after;
    });
  } catch (error) {
    if (isUniqueViolation(error, 'tenant_domains_verified_key')) throw new DomainAlreadyClaimedError();
    throw error;
  }
}
