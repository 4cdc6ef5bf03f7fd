import type { UserReference } from '@tms/contract';
import type { Executor } from '../../db/database.js';
import type { UserRow } from '../../db/schema.js';
import { UserNotFoundError } from '../../errors/index.js';
import { findOrInsertInvitedUser, findUserById } from './users.repository.js';

/** `{ userId }` must name an existing user; `{ email }` finds one or invites a new one. */
export async function getOrInviteUser(db: Executor, reference: UserReference): Promise<UserRow> {
  if ('userId' in reference) {
    const user = await findUserById(db, reference.userId);
    if (!user) throw new UserNotFoundError(reference.userId);
    return user;
  }
  return findOrInsertInvitedUser(db, reference.email, reference.displayName);
}
