import { contract } from '@tms/contract';
import { read, routes } from '../../pipeline/handlers.js';
import { describeCaller } from './me.service.js';

export const meRoutes = routes(contract.me, {
  get: read(async ({ db, requester }) => ({ status: 200, data: await describeCaller(db, requester) })),
});
