import type { Role } from '@tms/contract';
import type { Database } from '../db/database.js';
import type { UserRow } from '../db/schema.js';
import {
  claimInvitedUser,
  findUserBySubject,
  findUserBySubjectWithRole,
  insertUserIfAbsent,
} from '../modules/users/users.repository.js';
import type { TokenClaims } from './token-verifier.js';

export type Caller = {
  userId: string;
  subject: string;
  email: string | null;
  displayName: string | null;
  isSuperAdmin: boolean;
  /** The caller's role in the URL's tenant, read with the caller on tenant routes (null: none). */
  tenantRole?: { tenantId: string; role: Role | null };
};

const toCaller = (row: UserRow, subject: string): Caller => ({
  userId: row.id,
  subject,
  email: row.email,
  displayName: row.displayName,
  isSuperAdmin: row.isSuperAdmin,
});

/**
 * Finds the user behind a verified token, creating it on first sight. The record is read on every
 * request, so a revoked super administrator or a changed role takes effect at once.
 */
export async function resolveCaller(db: Database, claims: TokenClaims, tenantId?: string): Promise<Caller> {
  if (tenantId) {
    const known = await findUserBySubjectWithRole(db, claims.sub, tenantId);
    if (known) return { ...toCaller(known.user, claims.sub), tenantRole: { tenantId, role: known.role } };
  } else {
    const known = await findUserBySubject(db, claims.sub);
    if (known) return toCaller(known, claims.sub);
  }

  // Only a verified email may claim an invitation: otherwise anyone could put a victim's
  // address in a token and walk into the tenants the victim was invited to.
  const verifiedEmail = claims.emailVerified ? claims.email : undefined;
  if (verifiedEmail) {
    const claimed = await claimInvitedUser(db, verifiedEmail, claims.sub, claims.name);
    if (claimed) return toCaller(claimed, claims.sub);
  }

  const created =
    (await insertUserIfAbsent(db, {
      subject: claims.sub,
      email: verifiedEmail ?? null,
      displayName: claims.name ?? null,
    })) ?? (await findUserBySubject(db, claims.sub));
  if (created) return toCaller(created, claims.sub);

  // The verified email already belongs to another subject: keep the newcomer without it.
  const withoutEmail =
    (await insertUserIfAbsent(db, { subject: claims.sub, email: null, displayName: claims.name ?? null })) ??
    (await findUserBySubject(db, claims.sub));
  if (!withoutEmail) throw new Error(`could not create a user for subject ${claims.sub}`);
  return toCaller(withoutEmail, claims.sub);
}
