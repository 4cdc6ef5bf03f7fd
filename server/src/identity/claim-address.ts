import type { Database } from '../db/database.js';
import { isUniqueViolation } from '../db/db-errors.js';
import type { UserRow } from '../db/schema.js';
import type { EmailIdentity } from './email-address.js';
import {
  deleteUser,
  findUserByEmail,
  lockTenantsOfUsers,
  lockUserByEmail,
  moveMemberships,
  updateUserClaims,
} from './identity.repository.js';

/**
 * A signed-in user's token now carries a verified address it did not have. If an invited user (no
 * subject) holds the address, that is an invitation being claimed: its memberships move to this
 * user, who takes the address. An address held by someone who signed in stays theirs. True when
 * memberships moved.
 *
 * Locks, in the order every membership writer takes them: the tenants of both users (by id),
 * then the invited user's row, whose lock stops new memberships being made for it; then the
 * tenants again, for memberships committed while we waited.
 */
export async function claimAddress(
  db: Database,
  user: Pick<UserRow, 'id'>,
  email: EmailIdentity,
  displayName: string | undefined,
): Promise<boolean> {
  try {
    return await db.transaction(async (tx) => {
      const seen = await findUserByEmail(tx, email.address);
      if (seen) await lockTenantsOfUsers(tx, [seen.id, user.id]);
      const holder = await lockUserByEmail(tx, email);
      if (holder && holder.subject !== null) {
        await updateUserClaims(tx, user.id, { displayName });
        return false;
      }
      if (holder) {
        await lockTenantsOfUsers(tx, [holder.id, user.id]);
        await moveMemberships(tx, holder.id, user.id);
        await deleteUser(tx, holder.id);
      }
      await updateUserClaims(tx, user.id, { email, displayName });
      return holder !== undefined;
    });
  } catch (error) {
    // Another request gave the address to someone meanwhile; the next token tries again.
    if (isUniqueViolation(error, 'users_email_canonical_key')) return false;
    throw error;
  }
}
