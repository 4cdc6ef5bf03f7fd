import type { HealthReport, ProbeSchema } from '@tms/contract';
import type { z } from 'zod';

/* The examples of the health routes' bare bodies (no envelope), by operationId and status. */

type Probe = z.infer<typeof ProbeSchema>;
const healthy: HealthReport = {
  status: 'ok',
  checks: { database: { status: 'up', latencyMs: 1.7 } },
  version: '0.1.0',
  uptimeSeconds: 86_412,
};

export const HEALTH_RESPONSE_EXAMPLES = {
  getLiveness: {
    200: { ok: { summary: 'The process serves', value: { status: 'ok' } satisfies Probe } },
  },
  getReadiness: {
    200: { ok: { summary: 'Ready for traffic', value: { status: 'ok' } satisfies Probe } },
    503: {
      unavailable: {
        summary: 'The database does not answer, or is not migrated',
        value: { status: 'unavailable' } satisfies Probe,
      },
    },
  },
  getHealth: {
    200: { ok: { summary: 'All checks pass', value: healthy } },
    503: {
      degraded: {
        summary: 'The database is down',
        value: {
          ...healthy,
          status: 'degraded',
          checks: { database: { status: 'down', latencyMs: 1000 } },
        } satisfies HealthReport,
      },
    },
  },
};
