import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger };

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'tenant-membership-service' },
    // Defence in depth: nothing should log these, and if something does, they come out masked.
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.token', '*.secret'],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
