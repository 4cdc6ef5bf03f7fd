import { type Requester, readAsCaller } from '../../access/read-as-caller.js';
import type { Database } from '../../db/database.js';
import {
  listMyGuardiansAs,
  listWardsAs,
  type MyGuardianView,
  type WardView,
} from './guardian-reads.repository.js';

/** The caller's ACTIVE links as a guardian, read with the caller in one statement. */
export async function listWards(db: Database, requester: Requester): Promise<WardView[]> {
  const { items } = await readAsCaller(db, requester, (subject) => listWardsAs(db, subject));
  return items;
}

/** The caller's ACTIVE guardians as a student: their own, never anyone else's. */
export async function listMyGuardians(db: Database, requester: Requester): Promise<MyGuardianView[]> {
  const { items } = await readAsCaller(db, requester, (subject) => listMyGuardiansAs(db, subject));
  return items;
}
