import type { SuspendMembershipBody, UpdateMembershipBody } from '@tms/contract';
import { directoryManagedProblem } from '../../rules/directory-rules.js';
import {
  hierarchyProblem,
  lastActiveOwnerProblem,
  reactivatedTerm,
  statusAt,
  type Term,
  termProblems,
} from '../../rules/membership-rules.js';
import { refuse, refuseTerm } from '../../rules/problems.js';
import { assertIfMatch } from '../shared/if-match.js';
import type { TenantWrite } from '../shared/tenant-write.js';
import { membershipEventStatement, patchActionOf } from './membership-events.js';
import type { ForChange } from './membership-target.sql.js';
import { type Changed, reactivate, setTerm, suspend } from './membership-updates.repository.js';
import type { MembershipWithUser } from './memberships.repository.js';
import { existing, type NamedMembership } from './memberships.service.js';

/*
 * Changes that keep a membership: its role and term, its suspension. Like every membership write
 * they run in the transaction that holds the tenant's lock, read the membership first, decide on
 * the rules, and only then change it. The checks answer in the order the API documents: not found,
 * hierarchy, If-Match, the request's own values, then the last ACTIVE OWNER.
 */

const dateOf = (value: string | null | undefined) =>
  value === undefined || value === null ? value : new Date(value);

const sameDate = (a: Date | null, b: Date | null) => (a?.getTime() ?? null) === (b?.getTime() ?? null);

/** The membership after a change, as the last-owner rule sees it: its status at the transaction's time. */
const seatAfter = (before: ForChange, change: Partial<MembershipWithUser>) => {
  const after = { ...before, ...change };
  return { role: after.role, status: statusAt(after, before.now) };
};

/** The change made: the membership as it now is, the person as they were. */
function madeOf(before: ForChange, changed: Changed | undefined): MembershipWithUser {
  if (!changed) throw new Error('a membership changed under the tenant lock vanished');
  return { ...changed, user: before.user };
}

export async function changeMembership(
  { tx, access, audit, pipeline }: TenantWrite,
  named: NamedMembership,
  body: UpdateMembershipBody,
  ifMatch: string | undefined,
): Promise<MembershipWithUser> {
  const before = existing(named);
  const startsAt = dateOf(body.startsAt);
  const endsAt = dateOf(body.endsAt);
  const term: Term = {
    role: body.role ?? before.role,
    startsAt: startsAt === undefined ? before.startsAt : startsAt,
    endsAt: endsAt === undefined ? before.endsAt : endsAt,
  };
  refuse(
    hierarchyProblem(access.level, before.role, 'change'),
    body.role && hierarchyProblem(access.level, body.role, 'give'),
    body.role !== undefined && body.role !== before.role
      ? directoryManagedProblem(before.managedBy, 'role')
      : undefined,
  );
  assertIfMatch(ifMatch, before.version);
  refuseTerm(termProblems(term, { startsAt: startsAt !== undefined, endsAt: endsAt !== undefined }));
  refuse(lastActiveOwnerProblem(before, seatAfter(before, term), before.owners ?? 0));
  // A PATCH that changes nothing keeps its version, and leaves no event.
  const unchanged =
    term.role === before.role &&
    sameDate(term.startsAt, before.startsAt) &&
    sameDate(term.endsAt, before.endsAt);
  if (unchanged) return before;
  const after = madeOf(before, await setTerm(tx, access.tenantId, before.id, term));
  pipeline(membershipEventStatement(audit, patchActionOf(before, after), before, after));
  return after;
}

export async function suspendMembership(
  { tx, access, audit, pipeline }: TenantWrite,
  named: NamedMembership,
  body: SuspendMembershipBody,
  ifMatch: string | undefined,
): Promise<MembershipWithUser> {
  const before = existing(named);
  refuse(
    hierarchyProblem(access.level, before.role, 'suspend'),
    directoryManagedProblem(before.managedBy, 'suspend'),
  );
  assertIfMatch(ifMatch, before.version);
  // Suspended already: the first suspension, and its reason, stand.
  if (before.suspendedAt !== null) return before;
  refuse(lastActiveOwnerProblem(before, seatAfter(before, { suspendedAt: before.now }), before.owners ?? 0));
  const after = madeOf(before, await suspend(tx, access.tenantId, before.id, body?.reason ?? null));
  pipeline(membershipEventStatement(audit, 'membership.suspended', before, after));
  return after;
}

/** Reactivating only ever adds an ACTIVE member: no last-owner rule to check. */
export async function reactivateMembership(
  { tx, access, audit, pipeline }: TenantWrite,
  named: NamedMembership,
  ifMatch: string | undefined,
): Promise<MembershipWithUser> {
  const before = existing(named);
  refuse(
    hierarchyProblem(access.level, before.role, 'reactivate'),
    directoryManagedProblem(before.managedBy, 'reactivate'),
  );
  assertIfMatch(ifMatch, before.version);
  if (before.status === 'ACTIVE') return before;
  const after = madeOf(
    before,
    await reactivate(tx, access.tenantId, before.id, reactivatedTerm(before, before.now)),
  );
  pipeline(membershipEventStatement(audit, 'membership.reactivated', before, after));
  return after;
}
