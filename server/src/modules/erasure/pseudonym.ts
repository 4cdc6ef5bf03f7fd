import { createHash } from 'node:crypto';
import { canonicalEmail } from '../../identity/email-address.js';

/**
 * What stands for an erased person, everywhere: a name and an address made from the user's id.
 * The id stays in the trail anyway (it is opaque), so hashing it hides nothing; it only makes a
 * short, stable token, the same in every event, which 16 hex digits (64 bits) keep unique. The
 * address is under `.invalid`, a name that can never be registered (RFC 6761): nobody receives
 * mail there, and no identity provider can honestly verify it.
 */
export type Pseudonym = { name: string; email: string };

export function pseudonymOf(userId: string): Pseudonym {
  const token = createHash('sha256').update(userId).digest('hex').slice(0, 16);
  return { name: `Erased user ${token}`, email: `erased-${token}@erased.invalid` };
}

/**
 * Whose data an erasure rewrites. Resources are matched by their ids where the trail has them
 * (the person's memberships, the invitations addressed to them or accepted by them), users by
 * id, and an invitation no longer in the database (its tenant purged) by its address.
 */
export type ErasedPerson = {
  userId: string;
  /** The canonical form of the address the user held when erased (null: none). */
  canonicalEmail: string | null;
  /** Every membership that ever was the person's, live or only in the trail. */
  membershipIds: ReadonlySet<string>;
  /** Every invitation (to membership, or to be a guardian) addressed to the person or accepted by them. */
  invitationIds: ReadonlySet<string>;
  /** Canonical addresses of the person's: written in free text, they are replaced too. */
  canonicalEmails: ReadonlySet<string>;
  /** Names the person went by (their own, the ones tenants gave): replaced in their own records' free text. */
  names: readonly string[];
};

/**
 * A copy of `value` (a DTO as the API showed it: an audit event's before or after, a stored
 * answer) in which every place that showed the person shows the pseudonym: the `email` of their
 * records becomes the pseudonymous address, their `displayName` the pseudonymous name (an
 * invitation that carried no name keeps none), a `subject` null; in the free text of their own
 * records (a suspension reason), their addresses and names. The rewrite is a function of the value
 * alone, so that two events that showed one state still show one state after it.
 */
export function pseudonymised(value: unknown, person: ErasedPerson, pseudonym: Pseudonym): unknown {
  return rewrite(value as Json, { person, pseudonym });
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
type Rewrite = { person: ErasedPerson; pseudonym: Pseudonym };
type Kind = 'membership' | 'invitation' | 'user';

/** Fields that hold what people wrote, rather than ids, codes or dates. */
const FREE_TEXT = new Set(['suspensionReason']);

function rewrite(value: Json, r: Rewrite): Json {
  if (Array.isArray(value)) return value.map((item) => rewrite(item, r));
  if (value !== null && typeof value === 'object') return rewriteObject(value, r, kindOf(value, r.person));
  return value;
}

function rewriteObject(object: JsonObject, r: Rewrite, kind: Kind | undefined): JsonObject {
  const copy: JsonObject = {};
  for (const [key, field] of Object.entries(object)) copy[key] = rewriteField(key, field, r, kind);
  return copy;
}

function rewriteField(key: string, field: Json, r: Rewrite, kind: Kind | undefined): Json {
  if (kind === undefined) return rewrite(field, r);
  if (typeof field === 'string' && FREE_TEXT.has(key)) return rewriteText(field, r);
  if (kind === 'membership') {
    // A membership's `user` is its member, whatever it said then (an invited user since merged).
    return key === 'user' && isObject(field) ? rewriteObject(field, r, 'user') : rewrite(field, r);
  }
  if (key === 'email') return r.pseudonym.email;
  // An invitation shows the name its inviter gave, or none: none stays none.
  if (key === 'displayName') return kind === 'invitation' && field === null ? null : r.pseudonym.name;
  if (key === 'subject') return null;
  return rewrite(field, r);
}

const isObject = (value: Json): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Which of the person's records an object is: one of their memberships, an invitation addressed
 * to them, or the person as a user (a membership's `user`, a super-administrator flag).
 */
function kindOf(object: JsonObject, person: ErasedPerson): Kind | undefined {
  const id = (key: string) => (typeof object[key] === 'string' ? (object[key] as string) : undefined);
  const membershipId = id('tenantMembershipId');
  if (membershipId !== undefined) return person.membershipIds.has(membershipId) ? 'membership' : undefined;
  const guardianInvitationId = id('guardianInvitationId');
  if (guardianInvitationId !== undefined) {
    const mine =
      person.invitationIds.has(guardianInvitationId) ||
      id('guardianUserId') === person.userId ||
      isPersonsAddress(id('email'), person.canonicalEmail);
    return mine ? 'invitation' : undefined;
  }
  const invitationId = id('invitationId');
  if (invitationId !== undefined) {
    const mine =
      person.invitationIds.has(invitationId) ||
      id('acceptedUserId') === person.userId ||
      isPersonsAddress(id('email'), person.canonicalEmail);
    return mine ? 'invitation' : undefined;
  }
  if (id('userId') === person.userId) return 'user';
  return isPersonsAddress(id('email'), person.canonicalEmail) ? 'user' : undefined;
}

const isPersonsAddress = (address: string | undefined, canonical: string | null) =>
  address !== undefined && canonical !== null && canonicalEmail(address) === canonical;

/** Something shaped like an address inside prose. */
const ADDRESS_IN_TEXT = /[^\s<>()[\]{},;:"'`]+@[^\s<>()[\]{},;:"'`]+/g;

function rewriteText(text: string, r: Rewrite): string {
  let result = text.replace(ADDRESS_IN_TEXT, (found) => {
    const address = found.replace(/\.+$/, '');
    const canonical = canonicalEmail(address);
    if (canonical === undefined || !r.person.canonicalEmails.has(canonical)) return found;
    return r.pseudonym.email + found.slice(address.length);
  });
  const pseudonymText = `${r.pseudonym.name} ${r.pseudonym.email}`.toLowerCase();
  for (const name of r.person.names) {
    // A name the pseudonym itself contains ("user") would be replaced again at every rewrite.
    if (!pseudonymText.includes(name.trim().toLowerCase()))
      result = replaceWord(result, name, r.pseudonym.name);
  }
  return result;
}

/** Every occurrence of `name` as a word of its own, whatever its case ("Ann", not "Annual"). */
function replaceWord(text: string, name: string, by: string): string {
  const trimmed = name.trim();
  if (trimmed.length < 2) return text;
  const escaped = trimmed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'giu'), by);
}
