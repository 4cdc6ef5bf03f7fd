import { GUARDIANS_PER_STUDENT_MAX, ROLE_LEVEL, TENANT_ADMIN_LEVEL } from '@tms/contract';
import {
  type AppError,
  GuardianLimitReachedError,
  GuardianLinkAlreadyExistsError,
  GuardianOfSelfError,
  InsufficientRoleError,
  StudentNotFoundError,
  TenantAccessDeniedError,
} from '../errors/index.js';
import { NO_ROLE_LEVEL } from './policy.js';

/*
 * Who may act on a student's guardians, as pure functions over what the change read under the
 * tenant's lock. They answer the error to throw, or undefined. A caller who is not a member
 * (level NO_ROLE_LEVEL) and has no part of their own in the change is refused as every tenant
 * route refuses a stranger: TENANT_ACCESS_DENIED, whether or not the tenant or the thing exists.
 */

const refusedAs = (level: number, needs: string): AppError =>
  level === NO_ROLE_LEVEL ? new TenantAccessDeniedError() : new InsufficientRoleError(needs);

/** A pairing code is the student's to give, or a TEACHER's and above on their behalf. */
export function pairingCodeMakerProblem(
  access: { level: number },
  callerUserId: string,
  studentUserId: string,
): AppError | undefined {
  if (access.level >= ROLE_LEVEL.TEACHER) return undefined;
  if (access.level > NO_ROLE_LEVEL && callerUserId === studentUserId) return undefined;
  return refusedAs(
    access.level,
    'Only the student themself, or a TEACHER and above, may make a pairing code',
  );
}

/**
 * A link is revoked by the school's ADMINs and above, or by its guardian, who may always step
 * back; the student may not (a child does not dismiss a parent through a school's service), nor
 * may a TEACHER. `link` is undefined when the tenant has no such link.
 */
export function linkRemoverProblem(
  access: { level: number },
  callerUserId: string,
  link: { guardianUserId: string } | undefined,
): AppError | undefined {
  if (access.level >= TENANT_ADMIN_LEVEL) return undefined;
  if (link && link.guardianUserId === callerUserId) return undefined;
  return refusedAs(
    access.level,
    'Only an ADMIN and above, or the guardian themself, may revoke a guardian link',
  );
}

/** What a new ACTIVE link between a guardian and a student must not break. */
export function newGuardianProblem(
  guardianUserId: string,
  studentUserId: string,
  activeGuardians: number,
): AppError | undefined {
  if (guardianUserId === studentUserId) return new GuardianOfSelfError();
  if (activeGuardians >= GUARDIANS_PER_STUDENT_MAX)
    return new GuardianLimitReachedError(GUARDIANS_PER_STUDENT_MAX);
  return undefined;
}

/**
 * What an invitation of an address to be the student's guardian must not be: for someone who is
 * no STUDENT here (undefined address: no STUDENT membership), to the student's own address, or to
 * someone already their ACTIVE guardian. The six-guardian limit is not asked here: it holds on
 * ACTIVE links, which may be revoked before the invitation is answered, so the acceptance counts.
 */
export function guardianInvitationProblem(
  invitation: { studentUserId: string; canonical: string },
  facts: { studentAddress: string | null | undefined; linked: boolean },
): AppError | undefined {
  if (facts.studentAddress === undefined) return new StudentNotFoundError(invitation.studentUserId);
  if (facts.studentAddress === invitation.canonical) return new GuardianOfSelfError();
  if (facts.linked)
    return new GuardianLinkAlreadyExistsError(
      "The address's holder is already an ACTIVE guardian of this student here",
    );
  return undefined;
}
