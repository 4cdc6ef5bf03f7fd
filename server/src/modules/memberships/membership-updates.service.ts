import type { SuspendMembershipBody, UpdateMembershipBody } from '@tms/contract';
import { MembershipNotFoundError, ValidationFailedError } from '../../errors/index.js';
import { assertIfMatch } from '../shared/if-match.js';
import type { TenantWrite } from '../shared/tenant-write.js';
import { patchActionOf, recordMembershipEvent } from './membership-events.js';
import { assertNotLastOwner, assertWithinLevel } from './membership-rules.js';
import type { Before } from './membership-target.sql.js';
import {
  type Changed,
  reactivateReturningBefore,
  suspendReturningBefore,
  updateReturningBefore,
} from './membership-updates.repository.js';
import type { MembershipWithUser } from './memberships.repository.js';

/*
 * Changes that keep a membership: its role and term, its suspension. Like every membership write
 * they run in the transaction their access was decided in, under the tenant's lock; each is one
 * statement, and a rule it breaks throws, which rolls the change back with the transaction.
 * The checks answer in the order the API documents: not found, hierarchy, If-Match, the request's
 * own values, then the last ACTIVE OWNER.
 */

const dateOf = (value: string | null | undefined) =>
  value === undefined || value === null ? value : new Date(value);

const iso = (date: Date | null) => date?.toISOString() ?? 'null';

function found<T extends Changed>(changed: T | undefined, membershipId: string): T {
  if (!changed) throw new MembershipNotFoundError(membershipId);
  return changed;
}

/** The dates would end before they begin: named by the one the request sent (both: endsAt). */
function termOutOfOrder(body: UpdateMembershipBody, before: Before): ValidationFailedError {
  return body.endsAt !== undefined
    ? new ValidationFailedError([
        { path: 'body.endsAt', message: `must be after startsAt (${iso(before.startsAt)})` },
      ])
    : new ValidationFailedError([
        { path: 'body.startsAt', message: `must be before endsAt (${iso(before.endsAt)})` },
      ]);
}

/**
 * An OWNER answers for the tenant for as long as it is one: a term would end (or delay) that
 * without anyone handing the tenant over, and could leave it without an ACTIVE OWNER as time
 * passes, with no request to refuse. A date kept from before is named too, with how to clear it.
 */
function assertOwnerUndated(now: MembershipWithUser, body: UpdateMembershipBody): void {
  if (now.role !== 'OWNER') return;
  const dated = (['startsAt', 'endsAt'] as const).filter((key) => now[key] !== null);
  if (dated.length === 0) return;
  throw new ValidationFailedError(
    dated.map((key) => ({
      path: `body.${key}`,
      message:
        body[key] === undefined
          ? `an OWNER membership has no term dates: send ${key}: null to clear it`
          : 'an OWNER membership has no term dates',
    })),
  );
}

export async function changeMembership(
  { tx, access, audit }: TenantWrite,
  membershipId: string,
  body: UpdateMembershipBody,
  ifMatch: string | undefined,
): Promise<MembershipWithUser> {
  const change = { role: body.role, startsAt: dateOf(body.startsAt), endsAt: dateOf(body.endsAt) };
  const result = await updateReturningBefore(tx, access.tenantId, membershipId, change);
  const { before, after, termInOrder } = found(result, membershipId);
  assertWithinLevel(access, before.role, `You may not change a membership whose role is ${before.role}`);
  if (body.role) assertWithinLevel(access, body.role, `You may not give the role ${body.role}`);
  assertIfMatch(ifMatch, before.version);
  if (!termInOrder) throw termOutOfOrder(body, before);
  const now = after ?? before;
  assertOwnerUndated(now, body);
  assertNotLastOwner(before, now);
  // A PATCH that changes nothing keeps its version, and leaves no event.
  if (after) await recordMembershipEvent(tx, audit, patchActionOf(before, after), before, after);
  return now;
}

export async function suspendMembership(
  { tx, access, audit }: TenantWrite,
  membershipId: string,
  body: SuspendMembershipBody,
  ifMatch: string | undefined,
): Promise<MembershipWithUser> {
  const changed = await suspendReturningBefore(tx, access.tenantId, membershipId, body?.reason ?? null);
  const { before, after } = found(changed, membershipId);
  assertWithinLevel(access, before.role, `You may not suspend a membership whose role is ${before.role}`);
  assertIfMatch(ifMatch, before.version);
  const now = after ?? before;
  assertNotLastOwner(before, now);
  if (after) await recordMembershipEvent(tx, audit, 'membership.suspended', before, after);
  return now;
}

/** Reactivating only ever adds an ACTIVE member: no last-owner rule to check. */
export async function reactivateMembership(
  { tx, access, audit }: TenantWrite,
  membershipId: string,
  ifMatch: string | undefined,
): Promise<MembershipWithUser> {
  const changed = await reactivateReturningBefore(tx, access.tenantId, membershipId);
  const { before, after } = found(changed, membershipId);
  assertWithinLevel(access, before.role, `You may not reactivate a membership whose role is ${before.role}`);
  assertIfMatch(ifMatch, before.version);
  if (after) await recordMembershipEvent(tx, audit, 'membership.reactivated', before, after);
  return after ?? before;
}
