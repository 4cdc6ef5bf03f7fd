import type { RosterProblem, RosterSummary } from '@tms/contract';
import type { TenantAccess } from '../../access/decide-access.js';
import type { Executor } from '../../db/database.js';
import type { EmailIdentity } from '../../identity/email-address.js';
import { directoryManagedProblem } from '../../rules/directory-rules.js';
import { hierarchyProblem, isActiveOwner, lastActiveOwnerLeft } from '../../rules/membership-rules.js';
import { type GuardianFacts, type PlannedGuardian, readGuardianFacts } from './roster-guardians.js';
import { type PlannedMember, type RosterReading, readRoster } from './roster-plan.repository.js';
import { type Judged, judgeRows, problem, type Term } from './roster-plan-rows.js';
import type { RosterRow } from './roster-rows.js';

/*
 * What a roster file would do to a tenant, judged row by row as single requests would be
 * (roster-plan-rows.ts), then as a whole here: the removals, the last ACTIVE OWNER, the removal
 * limit. A dry run stops here; applyRosterPlan (roster-apply.repository.ts) makes
 * exactly these changes, in the same transaction, under the tenant's lock.
 */

export type RosterPlanInput = {
  tenantId: string;
  access: TenantAccess;
  /** Never removed by a sync. */
  callerUserId: string | null;
  /** The valid rows only (the reader drops invalid ones and reports them). */
  rows: RosterRow[];
  mode: 'add' | 'sync';
  maxRemovalPercent: number;
};

/** A row that adds a membership: for the address's holder, or a new invited user. */
export type PlannedCreate = Term & { row: number; email: EmailIdentity; invitedDisplayName: string | null };
/** A row that changes a membership: its role and dates after the change. */
export type PlannedUpdate = Term & { row: number; membershipId: string };

/** What applying does: opaque to the caller. */
export type RosterChanges = {
  tenantId: string;
  /** In row order. */
  creates: PlannedCreate[];
  updates: PlannedUpdate[];
  /** In creation order. */
  removals: PlannedMember[];
  /** The guardian invitations to make, in row order (those passed over are not here). */
  guardians: PlannedGuardian[];
};

export type RosterPlan = {
  /** Rows with an error are counted in none of these (the caller counts them as invalid). */
  summary: Omit<RosterSummary, 'invalid'>;
  /** By row: DUPLICATE_EMAIL, UNKNOWN_MEMBER, ROLE_HIERARCHY_VIOLATION, INVALID_TERM, LAST_OWNER. */
  errors: RosterProblem[];
  /** NOT_REMOVED (row null), in creation order. */
  warnings: RosterProblem[];
  removalLimit: { removals: number; members: number; allowed: number; exceeded: boolean };
  changes: RosterChanges;
};

/** Whether the member stays (or becomes) an ACTIVE OWNER: a changed OWNER is undated (termProblem). */
function activeOwnerAfter(judged: Judged): boolean {
  switch (judged.kind) {
    case 'error':
      return judged.member !== null && isActiveOwner(judged.member);
    case 'create':
      return judged.after.role === 'OWNER';
    case 'unchanged':
      return isActiveOwner(judged.member);
    default:
      return judged.after.role === 'OWNER' && !judged.member.suspended;
  }
}

/** A sync's removals: the members no row names, but the caller and those above the caller's role. */
function removalsOf(input: RosterPlanInput, unnamed: readonly PlannedMember[]) {
  const removals: PlannedMember[] = [];
  const warnings: RosterProblem[] = [];
  for (const member of unnamed) {
    if (member.userId === input.callerUserId) continue;
    if (directoryManagedProblem(member.managedBy, 'remove'))
      warnings.push(
        problem(
          null,
          null,
          'NOT_REMOVED',
          `${member.email ?? member.userId} is managed by the tenant's directory: not removed`,
        ),
      );
    else if (!hierarchyProblem(input.access.level, member.role, 'remove')) removals.push(member);
    else
      warnings.push(
        problem(
          null,
          null,
          'NOT_REMOVED',
          `${member.email ?? member.userId} is an ${member.role}, above your role: not removed`,
        ),
      );
  }
  return { removals, warnings };
}

/**
 * A tenant without an ACTIVE OWNER could never be administered again by its own people. When the
 * import would leave none (and there was one), the ACTIVE OWNERs it would remove all stay; if it
 * removes none, the rows that take the last ones away are refused.
 */
function keepAnActiveOwner(
  reading: RosterReading,
  judged: Judged[],
  removal: { removals: PlannedMember[]; warnings: RosterProblem[] },
): void {
  if (reading.activeOwners === 0) return;
  const namedBefore = new Set(
    judged.flatMap((j) =>
      j.kind !== 'create' && j.member && isActiveOwner(j.member) ? [j.member.membershipId] : [],
    ),
  );
  const removedOwners = removal.removals.filter(isActiveOwner);
  const unnamedStaying = reading.activeOwners - namedBefore.size - removedOwners.length;
  if (judged.filter(activeOwnerAfter).length + unnamedStaying > 0) return;
  if (removedOwners.length > 0) {
    removal.removals = removal.removals.filter((m) => !isActiveOwner(m));
    for (const owner of removedOwners) {
      const who = owner.email ?? owner.userId;
      removal.warnings.push(
        problem(null, null, 'NOT_REMOVED', `${who} is the tenant's last ACTIVE OWNER: not removed`),
      );
    }
    return;
  }
  for (const [n, j] of judged.entries()) {
    if (j.kind === 'error' || j.kind === 'create' || !isActiveOwner(j.member) || activeOwnerAfter(j))
      continue;
    judged[n] = {
      kind: 'error',
      problem: problem(j.row.row, 'role', 'LAST_OWNER', lastActiveOwnerLeft.message),
      member: j.member,
    };
  }
}

/** The guardians the rows ask for, before their facts are read. */
const plannedGuardians = (judged: readonly Judged[]): PlannedGuardian[] =>
  judged.flatMap((j) =>
    j.kind === 'error' || !j.row.guardian
      ? []
      : [{ row: j.row.row, studentUserId: j.kind === 'create' ? null : j.member.userId, ...j.row.guardian }],
  );

/** A guardian is invited for a STUDENT (as the row leaves them), and never to their own address. */
function guardianProblem(j: Exclude<Judged, { kind: 'error' }>, facts: ReadonlyMap<number, GuardianFacts>) {
  if (!j.row.guardian) return undefined;
  if (j.after.role !== 'STUDENT')
    return problem(
      j.row.row,
      'guardianEmail',
      'GUARDIAN_NOT_STUDENT',
      `a guardian is invited for a STUDENT; this row's member is ${j.after.role === 'OWNER' ? 'an' : 'a'} ${j.after.role}`,
    );
  if (facts.get(j.row.row)?.self)
    return problem(
      j.row.row,
      'guardianEmail',
      'GUARDIAN_OF_SELF',
      "guardianEmail is the student's own address",
    );
  return undefined;
}

export async function planRoster(tx: Executor, input: RosterPlanInput): Promise<RosterPlan> {
  const { tenantId, access, rows, mode } = input;
  const keys = rows.map((row) => ({
    row: row.row,
    canonical: row.email?.canonical ?? null,
    userId: row.userId,
  }));
  const reading = await readRoster(tx, tenantId, keys, mode === 'sync');
  const judged = judgeRows(access, rows, reading.named);
  const removal = removalsOf(input, reading.unnamed);
  keepAnActiveOwner(reading, judged, removal);

  const summary = {
    create: 0,
    updateRole: 0,
    updateTerm: 0,
    remove: removal.removals.length,
    unchanged: 0,
    guardianInvitations: 0,
  };
  const errors: RosterProblem[] = [];
  const changes: RosterChanges = {
    tenantId,
    creates: [],
    updates: [],
    removals: removal.removals,
    guardians: [],
  };
  const facts = await readGuardianFacts(tx, tenantId, plannedGuardians(judged));
  for (const j of judged) {
    if (j.kind === 'error') {
      errors.push(j.problem);
      continue;
    }
    const guardianError = guardianProblem(j, facts);
    if (guardianError) {
      errors.push(guardianError);
      continue;
    }
    if (j.row.guardian && !facts.get(j.row.row)?.pending && !facts.get(j.row.row)?.linked) {
      summary.guardianInvitations += 1;
      changes.guardians.push({
        row: j.row.row,
        studentUserId: j.kind === 'create' ? null : j.member.userId,
        ...j.row.guardian,
      });
    }
    summary[j.kind] += 1;
    if (j.kind === 'create') {
      const email = j.row.email as EmailIdentity;
      changes.creates.push({ row: j.row.row, email, invitedDisplayName: j.row.displayName, ...j.after });
    } else if (j.kind !== 'unchanged') {
      changes.updates.push({ row: j.row.row, membershipId: j.member.membershipId, ...j.after });
    }
  }
  errors.sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
  const allowed = Math.floor((reading.members * input.maxRemovalPercent) / 100);
  const removals = summary.remove;
  return {
    summary,
    errors,
    warnings: removal.warnings,
    removalLimit: { removals, members: reading.members, allowed, exceeded: removals > allowed },
    changes,
  };
}
