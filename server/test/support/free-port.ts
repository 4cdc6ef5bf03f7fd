import { createServer } from 'node:net';

/**
 * A port on 127.0.0.1 that nothing listens on now, for a process the test starts (PostgreSQL,
 * PgBouncer, HAProxy, the server in its image steps), which must be told its port up front.
 */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
