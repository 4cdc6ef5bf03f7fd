import type { TokenClaims } from '../auth/token-claims.js';
import type { Database } from '../db/database.js';
import { isUniqueViolation } from '../db/db-errors.js';
import type { UserRow } from '../db/schema.js';
import type { Caller } from './caller.js';
import { claimAddress } from './claim-address.js';
import { type EmailIdentity, emailIdentity } from './email-address.js';
import {
  claimOrInsertUser,
  findUserBySubject,
  insertUserIfAbsent,
  updateUserClaims,
} from './identity.repository.js';

/** What identifying a caller reads of its user: the read that finds it carries no more. */
export type KnownUser = Pick<UserRow, 'id' | 'email' | 'emailCanonical' | 'displayName' | 'isSuperAdmin'>;

export const toCaller = (row: KnownUser, subject: string): Caller => ({
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
  return emailIdentity(claims.email);
}

/** Tokens whose claims were already compared with the record: each new token is looked at once. */
const refreshed = new WeakSet<TokenClaims>();

/**
 * The caller behind verified claims. `known` is the user found by the token's subject, undefined
 * on first sight: the user is then created (or claims the invitation its verified address
 * names). The person's own claims are the source of their name and address: a claim that differs
 * from the record is written back (the address only when verified). `membershipsMoved` says that
 * the caller's memberships may differ from what was read with `known` (an invitation claimed).
 */
export async function identify(
  db: Database,
  claims: TokenClaims,
  known: KnownUser | undefined,
): Promise<{ caller: Caller; membershipsMoved: boolean }> {
  if (!known)
    return { caller: toCaller(await signInFirstTime(db, claims), claims.sub), membershipsMoved: true };
  if (identityIsCurrent(claims, known))
    return { caller: toCaller(known, claims.sub), membershipsMoved: false };
  const email = verifiedEmailOf(claims);
  refreshed.add(claims);
  const membershipsMoved = await refreshClaims(db, known, claims, email);
  const user = (await findUserBySubject(db, claims.sub)) ?? known;
  return { caller: toCaller(user, claims.sub), membershipsMoved };
}

/**
 * Whether the record needs nothing from these claims: it exists, and its name and address are the
 * token's, or this token was already looked at. A read that found such a record goes on with it.
 */
export const identityIsCurrent = (claims: TokenClaims, known: KnownUser | undefined): known is KnownUser =>
  known !== undefined && (refreshed.has(claims) || !differs(known, claims, verifiedEmailOf(claims)));

const differs = (user: KnownUser, claims: TokenClaims, email: EmailIdentity | undefined) =>
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
  user: KnownUser,
  claims: TokenClaims,
  email: EmailIdentity | undefined,
): Promise<boolean> {
  if (email && email.canonical !== user.emailCanonical) return claimAddress(db, user, email, claims.name);
  await updateUserClaims(db, user.id, { email, displayName: claims.name });
  return false;
}
