import type { UserReference } from '@tms/contract';
import type { Executor } from '../../db/database.js';
import type { UserRow } from '../../db/schema.js';
import { UserNotFoundError } from '../../errors/index.js';
import { emailIdentityOf } from '../../identity/email-address.js';
import { findOrInsertInvitedUser, findUserById } from './users.repository.js';

/**
 * `{ userId }` must name an existing user; `{ email }` finds the address's holder or invites a
 * new one. `emailPath` names the field in the request, for the validation error.
 */
export async function getOrInviteUser(
  db: Executor,
  reference: UserReference,
  emailPath: string,
): Promise<UserRow> {
  if ('userId' in reference) {
    const user = await findUserById(db, reference.userId);
    if (!user || user.erasedAt) throw new UserNotFoundError(reference.userId);
    return user;
  }
  return findOrInsertInvitedUser(db, emailIdentityOf(reference.email, emailPath));
}
