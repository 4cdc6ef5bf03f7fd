import { lockLiveTenant } from '../../access/access.repository.js';
import type { Database, Executor } from '../../db/database.js';
import { domainOfCanonicalEmail } from '../../identity/email-address.js';
import type { SignedIn } from '../../identity/identify.js';
import type { AuditContext } from '../audit/audit-context.js';
import { recordAuditEvents } from '../audit/audit-events-batch.repository.js';
import { joinedMembershipEvent, joinRequestEvent } from '../joining/joining-events.js';
import {
  findDomainsActingOn,
  insertDomainJoinRequests,
  insertDomainMemberships,
  type Reach,
  recordReached,
} from './domain-joins.repository.js';
import { type DomainView, findDomainInTenant } from './domains.repository.js';

/*
 * What a verified domain does (docs/joining.md, "Verified domains"): a person whose verified
 * address is at it, and who has no membership in its tenant, joins (mode `join`: an ACTIVE
 * membership with the domain's role) or asks to (mode `request`: a join request for that role).
 * Once only per tenant and person (domain_joins): whoever left, was removed, refused or blocked is
 * not brought back by the domain; a person with a pending request keeps that one.
 */

/**
 * Applies the domain to the people it reaches, in the transaction that holds its tenant's lock:
 * every membership writer of the tenant waits for it, and it for them, so an admin's add of the
 * same person either comes first (the person is then a member: nothing is made) or finds the
 * domain's membership (409). Each membership or request with its event, in the same transaction.
 */
export async function applyDomain(
  tx: Executor,
  audit: AuditContext,
  domain: DomainView,
  reach: Reach,
): Promise<void> {
  if (domain.verifiedAt === null) return;
  const reached = await recordReached(tx, domain, reach);
  const open = reached.filter((p) => !p.member && !p.blocked && !p.pending).map((p) => p.userId);
  if (open.length === 0) return;
  if (domain.mode === 'join') {
    const made = await insertDomainMemberships(tx, domain, open);
    const joinedVia = { method: 'domain', domainId: domain.id } as const;
    await recordAuditEvents(
      tx,
      made.map((membership) => joinedMembershipEvent(audit, membership, joinedVia)),
    );
    return;
  }
  const asked = await insertDomainJoinRequests(tx, domain, open);
  await recordAuditEvents(
    tx,
    asked.map((request) => joinRequestEvent(audit, 'join_request.created', null, request)),
  );
}

/**
 * A person seen with a verified address they were not known by (first sight, or a new address):
 * the verified domains at it apply to them. Called by identification (identity/identify.ts,
 * through the pipeline: identity sits below the modules), never on an ordinary request. One
 * statement finds the domains (none, mostly); then one transaction locks their tenants in id
 * order, as every writer of several tenants does, and applies each. True when one applied.
 */
export async function joinByVerifiedDomains(
  db: Database,
  person: SignedIn,
  requestId: string | null,
): Promise<boolean> {
  const domains = await findDomainsActingOn(db, person.userId, domainOfCanonicalEmail(person.emailCanonical));
  if (domains.length === 0) return false;
  const audit: AuditContext = {
    actor: { userId: person.userId, subject: person.subject, isSuperAdmin: person.isSuperAdmin },
    requestId,
  };
  await db.transaction(async (tx) => {
    for (const { id, tenantId } of domains) {
      // Deleted, or the domain removed or changed, since it was found: read again under the lock.
      if (!(await lockLiveTenant(tx, tenantId))) continue;
      const domain = await findDomainInTenant(tx, tenantId, id);
      if (domain) await applyDomain(tx, audit, domain, { userId: person.userId });
    }
  });
  return true;
}
