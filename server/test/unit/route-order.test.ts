import { contract, scimContract } from '@tms/contract';
import type { AppRoute } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import { createApp, flattenRoutes } from '../../src/app.js';
import type { Database } from '../../src/db/database.js';
import { createLogger } from '../../src/logger.js';

// Express tries its routes in the order they were registered, and the first whose pattern matches
// answers: app.ts registers the busiest first (fewer patterns tried per request), which is safe only
// while no route's URL is caught by another's pattern registered before it (GET .../memberships/export
// by .../memberships/:tenantMembershipId, say). Building the app touches no database.
type Layer = {
  route?: { path: string; _handles_method(method: string): boolean };
  match(path: string): boolean;
};

const app = createApp({
  db: {} as Database,
  verifyToken: async () => {
    throw new Error('not called');
  },
  logger: createLogger('silent'),
  version: 'test',
});
const stack = (app as unknown as { _router: { stack: Layer[] } })._router.stack;

/** A URL of the route: each parameter an id, each literal segment itself. */
const urlOf = (route: AppRoute) => route.path.replace(/:[A-Za-z]+/g, '0193a0c2-1d2e-7f00-8000-000000000001');

const routes = [...flattenRoutes(contract), ...flattenRoutes(scimContract)];

describe('route order', () => {
  it.each(routes.map((route) => ({ name: `${route.method} ${route.path}`, route })))(
    '$name is answered by its own route',
    ({ route }) => {
      const url = urlOf(route);
      const method = route.method.toLowerCase();
      const first = stack.find((layer) => layer.route?._handles_method(method) && layer.match(url));
      expect(first?.route?.path).toBe(route.path);
    },
  );
});
