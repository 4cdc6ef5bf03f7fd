import { contract } from '@tms/contract';
import { routes, write } from '../../pipeline/handlers.js';
import { eraseUser } from '../erasure/erasure.service.js';

/** Platform routes on users, for super administrators (decided before the request's body). */
export const usersRoutes = routes(contract.users, {
  erase: write(async ({ db, audit }, { params }) => {
    await eraseUser(db, audit, params.userId);
    return { status: 204 };
  }),
});
