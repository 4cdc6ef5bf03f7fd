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

/** A person identified with a verified address (their stored one: only verified addresses are stored). */
export type SignedIn = { userId: string; subject: string; emailCanonical: string; isSuperAdmin: boolean };

/**
 * What a new verified address sets off beyond the record: joining by the verified domains at it
 * (modules/domains/domain-joins.service.ts). Given by the composition (app.ts, through the
 * pipeline), since identity sits below the modules; true when it changed the person's memberships.
 */
export type AtSignIn = (db: Database, person: SignedIn, requestId: string | null) => Promise<boolean>;

/** The hook, with the request it runs for (its events name it). */
export type SignInContext = { atSignIn: AtSignIn; requestId: string | null };

/** The hook, when the person's stored address is new: on first sight, or changed by these claims. */
async function signedInWith(
  db: Database,
  user: KnownUser,
  subject: string,
  previous: string | null,
  signIn: SignInContext | undefined,
): Promise<boolean> {
  const emailCanonical = user.emailCanonical;
  if (!signIn || emailCanonical === null || emailCanonical === previous) return false;
  const person = { userId: user.id, subject, emailCanonical, isSuperAdmin: user.isSuperAdmin };
  return signIn.atSignIn(db, person, signIn.requestId);
}

/** Tokens whose claims were already compared with the record: each new token is looked at once. */
const refreshed = new WeakSet<TokenClaims>();

/**
 * The caller behind verified claims. `known` is the user found by the token's subject, undefined
 * on first sight: the user is then created (or claims the invitation its verified address
 * names). The person's own claims are the source of their name and address: a claim that differs
 * from the record is written back (the address only when verified). `membershipsMoved` says that
 * the caller's memberships may differ from what was read with `known` (an invitation claimed, or
 * a verified domain joined: `atSignIn`, only on first sight and when the stored address changed,
 * so that an ordinary request sends no statement more).
 */
export async function identify(
  db: Database,
  claims: TokenClaims,
  known: KnownUser | undefined,
  signIn?: SignInContext,
): Promise<{ caller: Caller; membershipsMoved: boolean }> {
  if (!known) {
    const user = await signInFirstTime(db, claims);
    await signedInWith(db, user, claims.sub, null, signIn);
    return { caller: toCaller(user, claims.sub), membershipsMoved: true };
  }
  const previous = known.emailCanonical;
  if (identityIsCurrent(claims, known))
    return { caller: toCaller(known, claims.sub), membershipsMoved: false };
  const email = verifiedEmailOf(claims);
  refreshed.add(claims);
  const claimed = await refreshClaims(db, known, claims, email);
  const user = (await findUserBySubject(db, claims.sub)) ?? known;
  const joined = await signedInWith(db, user, claims.sub, previous, signIn);
  return { caller: toCaller(user, claims.sub), membershipsMoved: claimed || joined };
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
