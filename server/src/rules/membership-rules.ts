import type { MembershipStatus, Role } from '@tms/contract';
import { OWNER_ONLY, type OwnerOnlyAction, ROLE_LEVEL } from './policy.js';
import type { Problem } from './problems.js';

/*
 * The rules of a membership change, as pure functions of what was read under the tenant's lock:
 * each returns the problem, or undefined. Single writes throw the first (problems.ts: refuse), a
 * roster import collects one per row, invitations, transfers and the erasure of a user ask the
 * same questions. The tenant's lock (pipeline/tenant-transaction.ts) keeps what they were asked
 * on from changing before the commit.
 */

/** A membership's term: its role and dates. */
export type Term = { role: Role; startsAt: Date | null; endsAt: Date | null };
/** What decides a membership's status. */
export type Standing = { suspendedAt: Date | null; startsAt: Date | null; endsAt: Date | null };
/** A membership as the last-owner rule sees it. */
export type Seat = { role: Role; status: MembershipStatus };

/**
 * A membership's status at `now` (the transaction's time, as PostgreSQL's now()). A suspension
 * outranks the dates (a person did it by hand, and reactivating is what undoes it); an ended term
 * outranks one not yet begun. The SQL of the same rule, for lists and filters, is
 * modules/memberships/membership-status.sql.ts; a test holds the two to the same answers.
 */
export function statusAt({ suspendedAt, startsAt, endsAt }: Standing, now: Date): MembershipStatus {
  if (suspendedAt !== null) return 'SUSPENDED';
  if (endsAt !== null && endsAt.getTime() <= now.getTime()) return 'ENDED';
  if (startsAt !== null && startsAt.getTime() > now.getTime()) return 'SCHEDULED';
  return 'ACTIVE';
}

export const isActiveOwner = (seat: Seat): boolean => seat.role === 'OWNER' && seat.status === 'ACTIVE';

/** What an actor does to a role, as its refusal says it. */
const ACTS = {
  give: (role: Role) => `You may not give the role ${role}`,
  invite: (role: Role) => `You may not invite to the role ${role}`,
  change: (role: Role) => `You may not change a membership whose role is ${role}`,
  suspend: (role: Role) => `You may not suspend a membership whose role is ${role}`,
  reactivate: (role: Role) => `You may not reactivate a membership whose role is ${role}`,
  remove: (role: Role) => `You may not remove a membership whose role is ${role}`,
  actOnInvitation: (role: Role) => `You may not act on an invitation to the role ${role}`,
} as const;

export type Act = keyof typeof ACTS;

/** Nobody hands out, or acts on, a role above their own: an ADMIN cannot make or unmake an OWNER. */
export function hierarchyProblem(actorLevel: number, role: Role, act: Act): Problem | undefined {
  if (ROLE_LEVEL[role] <= actorLevel) return undefined;
  return { rule: 'hierarchy', message: ACTS[act](role), field: 'role' };
}

/** Only an OWNER (or a super administrator) takes these actions, whatever the route let in. */
export function ownerOnlyProblem(actorLevel: number, action: OwnerOnlyAction): Problem | undefined {
  if (actorLevel >= ROLE_LEVEL.OWNER) return undefined;
  return { rule: 'ownerOnly', message: `Only an OWNER may ${OWNER_ONLY[action]}` };
}

const iso = (date: Date | null) => date?.toISOString() ?? 'null';

/**
 * The term after a change: its dates in order, named by the date the change sent (both sent:
 * endsAt); and none for an OWNER, who answers for the tenant for as long as it is one (a term
 * would end that without anyone handing the tenant over, and could leave it without an ACTIVE
 * OWNER as time passes, with no request to refuse). A date kept from before is named with how to
 * clear it. `sent`: which dates the change itself set.
 */
export function termProblems(after: Term, sent: { startsAt: boolean; endsAt: boolean }): Problem[] {
  const { startsAt, endsAt } = after;
  if (startsAt && endsAt && startsAt.getTime() >= endsAt.getTime()) {
    return [
      sent.endsAt || !sent.startsAt
        ? { rule: 'term', field: 'endsAt', message: `must be after startsAt (${iso(startsAt)})` }
        : { rule: 'term', field: 'startsAt', message: `must be before endsAt (${iso(endsAt)})` },
    ];
  }
  if (after.role !== 'OWNER') return [];
  return (['startsAt', 'endsAt'] as const)
    .filter((field) => after[field] !== null)
    .map((field) => ({
      rule: 'term',
      field,
      message: sent[field]
        ? 'an OWNER membership has no term dates'
        : `an OWNER membership has no term dates: clear ${field} (it has one now)`,
    }));
}

/**
 * A tenant without an ACTIVE OWNER could never be administered again by its own people: a
 * suspended OWNER has no access either. So the last ACTIVE OWNER may not be demoted, suspended,
 * given an end or a later start, nor removed (`after` undefined). `activeOwners`: how many the
 * tenant has now, this one included.
 */
export function lastActiveOwnerProblem(
  before: Seat,
  after: Seat | undefined,
  activeOwners: number,
): Problem | undefined {
  if (!isActiveOwner(before) || (after && isActiveOwner(after))) return undefined;
  if (activeOwners > 1) return undefined;
  return lastActiveOwnerLeft;
}

/** The same refusal, for a change of several memberships at once (a roster file) judged as a whole. */
export const lastActiveOwnerLeft: Problem = {
  rule: 'lastActiveOwner',
  message: 'the tenant would be left without an ACTIVE OWNER',
  field: 'role',
};

/**
 * The term a reactivation leaves: what keeps the membership from being ACTIVE now goes (a start
 * still to come, an end passed), dates that do not stay; the suspension is lifted by the change.
 */
export function reactivatedTerm(
  { startsAt, endsAt }: Standing,
  now: Date,
): Pick<Standing, 'startsAt' | 'endsAt'> {
  return {
    startsAt: startsAt !== null && startsAt.getTime() > now.getTime() ? null : startsAt,
    endsAt: endsAt !== null && endsAt.getTime() <= now.getTime() ? null : endsAt,
  };
}
