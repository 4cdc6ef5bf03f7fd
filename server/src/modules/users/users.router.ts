import { contract } from '@tms/contract';
import type { Database } from '../../db/database.js';
import { enveloped } from '../../routing/enveloped.js';
import { auditContextOf } from '../../routing/request-context.js';
import { eraseUser } from './user-erasure.service.js';

/** Platform routes on users, for super administrators (decided by the authorise middleware). */
export const usersRouter = (db: Database) =>
  enveloped(contract.users, {
    erase: async ({ req, params }) => {
      await eraseUser(db, auditContextOf(req), params.userId);
      return { status: 204 };
    },
  });
