import type { MembershipStatus } from '@tms/contract';
import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { tenantMemberships } from '../db/schema.js';

/** The membership table, or an alias of it (alias(tenantMemberships, 'owner')): its three columns of state. */
type Memberships = Record<'suspendedAt' | 'startsAt' | 'endsAt', SQLWrapper>;

/**
 * Whether a membership grants access now: not suspended and within its term. The one definition,
 * used by the access read, the last-owner count and the status filter; `now()` is the
 * transaction's start, so one transaction sees one answer.
 */
export const isActive = (m: Memberships = tenantMemberships): SQL<boolean> =>
  sql<boolean>`(${m.suspendedAt} is null and (${m.startsAt} is null or ${m.startsAt} <= now()) and (${m.endsAt} is null or ${m.endsAt} > now()))`;

/**
 * Whether a membership is an ACTIVE OWNER: one that answers for the tenant now (rules/
 * membership-rules.ts: the last-owner rule counts these, and only these).
 */
export const isActiveOwner = (m: Memberships & { role: SQLWrapper } = tenantMemberships): SQL<boolean> =>
  sql<boolean>`(${m.role} = 'OWNER' and ${isActive(m)})`;

const owner = alias(tenantMemberships, 'owner');

/** How many ACTIVE OWNERs the tenant has, as a scalar subquery beside another statement. */
export const activeOwnersOf = (tenantId: SQLWrapper): SQL<number> =>
  sql<number>`(select count(*)::int from ${tenantMemberships} as "owner" where ${owner.tenantId} = ${tenantId} and ${isActiveOwner(owner)})`;

/**
 * A membership's status as the API shows it. A suspension outranks the dates (it is what a person
 * did by hand, and reactivating is what undoes it); an ended term outranks one not yet begun.
 */
export const statusOf = (m: Memberships = tenantMemberships): SQL<MembershipStatus> =>
  sql<MembershipStatus>`(case when ${m.suspendedAt} is not null then 'SUSPENDED' when ${m.endsAt} is not null and ${m.endsAt} <= now() then 'ENDED' when ${m.startsAt} is not null and ${m.startsAt} > now() then 'SCHEDULED' else 'ACTIVE' end)`;
