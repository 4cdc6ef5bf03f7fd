import type { Role } from '@tms/contract';
import type { Database } from '../db/database.js';
import { isUniqueViolation } from '../db/db-errors.js';
import type { UserRow } from '../db/schema.js';
import { canonicalEmail } from '../identity/email-address.js';
import {
  claimOrInsertUser,
  type EmailIdentity,
  findUserBySubject,
  findUserBySubjectWithRole,
  insertUserIfAbsent,
  updateUserClaims,
} from '../modules/users/users.repository.js';
import { claimAddress } from './claim-address.js';
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
 * Only a verified address identifies anyone: otherwise a token carrying a victim's address would
 * walk into the tenants the victim was invited to. An address that is not valid counts as none.
 */
function verifiedEmailOf(claims: TokenClaims): EmailIdentity | undefined {
  if (!claims.emailVerified || claims.email === undefined) return undefined;
  const canonical = canonicalEmail(claims.email);
  return canonical ? { address: claims.email, canonical } : undefined;
}

/** Tokens whose claims were already compared with the record: each new token is looked at once. */
const refreshed = new WeakSet<TokenClaims>();

/**
 * Finds the user behind a verified token, creating it on first sight. The record is read on every
 * request, so a revoked super administrator or a changed role takes effect at once. The person's
 * own claims are the source of their name and address: a claim that differs from the record is
 * written back (the address only when verified).
 */
export async function resolveCaller(db: Database, claims: TokenClaims, tenantId?: string): Promise<Caller> {
  const known = tenantId
    ? await findUserBySubjectWithRole(db, claims.sub, tenantId)
    : await findUserBySubject(db, claims.sub).then((user) => user && { user, role: null });
  if (!known) return toCaller(await signInFirstTime(db, claims), claims.sub);

  const email = verifiedEmailOf(claims);
  if (!refreshed.has(claims) && differs(known.user, claims, email)) {
    refreshed.add(claims);
    // Claiming an invited user brings its memberships: the role read above may be stale.
    if (await refreshClaims(db, known.user, claims, email)) return resolveCaller(db, claims, tenantId);
    const user = (await findUserBySubject(db, claims.sub)) ?? known.user;
    return withRole(toCaller(user, claims.sub), tenantId, known.role);
  }
  return withRole(toCaller(known.user, claims.sub), tenantId, known.role);
}

const withRole = (caller: Caller, tenantId: string | undefined, role: Role | null): Caller =>
  tenantId ? { ...caller, tenantRole: { tenantId, role } } : caller;

const differs = (user: UserRow, claims: TokenClaims, email: EmailIdentity | undefined) =>
  (claims.name !== undefined && claims.name !== user.displayName) ||
  (email !== undefined && email.address !== user.email);

async function signInFirstTime(db: Database, claims: TokenClaims): Promise<UserRow> {
  refreshed.add(claims);
  const email = verifiedEmailOf(claims);
  const displayName = claims.name ?? null;
  if (email) {
    try {
      const user = await claimOrInsertUser(db, { subject: claims.sub, email, displayName });
      if (user) return user;
      // Someone who signed in before holds the address: this subject goes without it.
    } catch (error) {
      // The same subject's first request, in parallel, made the user.
      if (!isUniqueViolation(error, 'users_subject_key')) throw error;
    }
  }
  const user =
    (await insertUserIfAbsent(db, { subject: claims.sub, email: null, displayName })) ??
    (await findUserBySubject(db, claims.sub));
  if (!user) throw new Error(`could not create a user for subject ${claims.sub}`);
  return user;
}

/** Writes the newer claims to the record; true when an invitation's memberships came with them. */
async function refreshClaims(
  db: Database,
  user: UserRow,
  claims: TokenClaims,
  email: EmailIdentity | undefined,
): Promise<boolean> {
  if (email && email.canonical !== user.emailCanonical) return claimAddress(db, user, email, claims.name);
  await updateUserClaims(db, user.id, { email, displayName: claims.name });
  return false;
}
