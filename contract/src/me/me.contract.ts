import { initContract } from '@ts-rest/core';
import type { RouteMetadata } from '../common/metadata.js';
import { successEnvelope } from '../envelope.js';
import { withErrorResponses } from '../route-errors.js';
import { MeSchema } from './me.schemas.js';

const c = initContract();

const routes = c.router(
  {
    get: {
      method: 'GET',
      path: '/me',
      responses: { 200: successEnvelope(MeSchema) },
      summary: 'Who the caller is, and the tenants it belongs to',
    },
  },
  { metadata: { access: 'authenticated' } satisfies RouteMetadata },
);

export const meContract = withErrorResponses(routes);
