import { initContract } from '@ts-rest/core';
import type { RouteMetadata } from '../common/metadata.js';
import { authenticatedErrorResponses, successEnvelope } from '../envelope.js';
import { MeSchema } from './me.schemas.js';

const c = initContract();

export const meContract = c.router(
  {
    get: {
      method: 'GET',
      path: '/me',
      responses: { 200: successEnvelope(MeSchema) },
      summary: 'Who the caller is, and the tenants it belongs to',
    },
  },
  {
    commonResponses: authenticatedErrorResponses,
    metadata: { access: 'authenticated' } satisfies RouteMetadata,
  },
);
