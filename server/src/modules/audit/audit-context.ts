/**
 * Who made a change, as the audit trail records it. The purge and the command line act for
 * nobody: every field null and isSuperAdmin false (SYSTEM_ACTOR), so such events are told apart
 * from any person's.
 */
export type AuditActor = { userId: string | null; subject: string | null; isSuperAdmin: boolean };

/** What every change passes down to its event: the actor and the request it came with. */
export type AuditContext = { actor: AuditActor; requestId: string | null };

export const SYSTEM_ACTOR: AuditActor = { userId: null, subject: null, isSuperAdmin: false };

/** The context of a change made by the server itself or the command line: no person, no request. */
export const SYSTEM_AUDIT: AuditContext = { actor: SYSTEM_ACTOR, requestId: null };
