import { contract } from '@tms/contract';
import type { Database } from '../../db/database.js';
import { normalised } from '../../http/normalise-response.js';
import { callerOf } from '../../http/request-context.js';
import { describeCaller } from './me.service.js';

export const meRouter = (db: Database) =>
  normalised(contract.me, {
    get: async ({ req }) => ({ status: 200, data: await describeCaller(db, callerOf(req)) }),
  });
