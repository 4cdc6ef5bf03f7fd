import { contract } from '@tms/contract';
import type { Database } from '../../db/database.js';
import { enveloped } from '../../routing/enveloped.js';
import { requesterOf } from '../../routing/request-context.js';
import { describeCaller } from './me.service.js';

export const meRouter = (db: Database) =>
  enveloped(contract.me, {
    get: async ({ req }) => ({ status: 200, data: await describeCaller(db, requesterOf(req)) }),
  });
