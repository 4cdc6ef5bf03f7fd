import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import type { RouteMetadata } from '../common/metadata.js';
import { withErrorResponses } from '../route-errors.js';

const c = initContract();

export const ProbeSchema = z.object({ status: z.enum(['ok', 'unavailable']) });
export const HealthReportSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  checks: z.object({
    database: z.object({ status: z.enum(['up', 'down']), latencyMs: z.number() }),
  }),
  version: z.string(),
  uptimeSeconds: z.number(),
});
export type HealthReport = z.infer<typeof HealthReportSchema>;

const routes = c.router(
  {
    live: {
      method: 'GET',
      path: '/health/live',
      responses: { 200: ProbeSchema },
      summary: 'Liveness: the process serves',
    },
    ready: {
      method: 'GET',
      path: '/health/ready',
      responses: { 200: ProbeSchema, 503: ProbeSchema },
      summary: 'Readiness: the database answers within 1 s and is migrated',
    },
    report: {
      method: 'GET',
      path: '/health',
      responses: { 200: HealthReportSchema, 503: HealthReportSchema },
      summary: 'Health report with database latency, version and uptime',
    },
  },
  { metadata: { access: 'public' } satisfies RouteMetadata },
);

/**
 * Health routes answer bare bodies: load balancers and orchestrators read them, not apps. They
 * declare no error code, so withErrorResponses adds nothing; it is here so that a code added later
 * gets its status like on every other route.
 */
export const healthContract = withErrorResponses(routes);
