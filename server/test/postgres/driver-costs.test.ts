import net from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BareDatabase, createBareDatabase } from '../support/test-database.js';

// postgres.js itself, without the service around it: three of the costs patches/postgres+3.4.9.patch
// takes off a statement (patches/README.md, hunks 4, 7 and 8). Each test fails on the unpatched
// package. No sleep decides an outcome: each step waits for the event it needs.

let database: BareDatabase;

beforeAll(async () => {
  database = await createBareDatabase();
});

afterAll(async () => {
  await database?.drop();
});

describe('postgres.js: a transaction begins without waiting for BEGIN', () => {
  it('writes its first statement before BEGIN is answered, and answers as before', async () => {
    // A proxy between the pool and the server that, once the client wrote BEGIN, holds back what
    // the server answers until the client has also written the transaction's first statement.
    // Unpatched, the client waits for BEGIN's answer before writing anything else: it never comes,
    // and this test fails by its timeout.
    const target = new URL(database.url);
    const proxy = net.createServer((client) => {
      const server = net.connect(Number(target.port || 5432), target.hostname);
      let holding = false;
      const held: Buffer[] = [];
      client.on('data', (chunk: Buffer) => {
        server.write(chunk);
        const text = chunk.toString('latin1');
        if (/\bbegin\b/i.test(text)) holding = true;
        if (text.includes('first_after_begin')) {
          holding = false;
          for (const answer of held.splice(0)) client.write(answer);
        }
      });
      server.on('data', (chunk: Buffer) => (holding ? held.push(chunk) : client.write(chunk)));
      client.on('close', () => server.destroy());
      server.on('close', () => client.destroy());
      client.on('error', () => {});
      server.on('error', () => {});
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const { port } = proxy.address() as net.AddressInfo;
    const url = new URL(database.url);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    const sql = postgres(url.toString(), { max: 1, onnotice: () => {} });
    try {
      // One transaction id for both statements: the first ran inside the transaction, not before it.
      const [first, second] = await sql.begin(async (tx) => {
        const [a] = await tx<{ marker: string; xid: string }[]>`
          select 'first_after_begin' as marker, txid_current()::text as xid`;
        const [b] = await tx<{ xid: string }[]>`select txid_current()::text as xid`;
        return [a, b];
      });
      expect(first?.marker).toBe('first_after_begin');
      expect(first?.xid).toBe(second?.xid);
    } finally {
      await sql.end({ timeout: 1 });
      proxy.close();
    }
  });
});

/**
 * A pool of one connection whose socket tells `seen` the text of each chunk the driver writes
 * (latin1: the protocol's framing bytes come through as characters, the SQL as it is).
 */
function watchedPool(seen: (text: string) => void): postgres.Sql {
  const target = new URL(database.url);
  const socket = () =>
    new Promise<net.Socket>((resolve, reject) => {
      const connection = net.connect(Number(target.port || 5432), target.hostname);
      const write = connection.write.bind(connection) as (...args: unknown[]) => boolean;
      connection.write = ((chunk: Buffer, ...rest: unknown[]) => {
        seen(Buffer.from(chunk).toString('latin1'));
        return write(chunk, ...rest);
      }) as net.Socket['write'];
      connection.once('connect', () => resolve(connection));
      connection.once('error', reject);
    });
  // postgres.js documents `socket` but leaves it out of its types (as src/db/client.ts does).
  const options: postgres.Options<Record<string, never>> & { socket: typeof socket } = {
    max: 1,
    onnotice: () => {},
    socket,
  };
  return postgres(database.url, options);
}

describe('postgres.js: a COMMIT is written at once', () => {
  it('reaches the socket before an immediate queued as the transaction returned', async () => {
    // The driver writes a chunk of under 1 KiB from a setImmediate of its own, queued behind every
    // immediate before it. Unpatched, the COMMIT leaves only after the one this test queues; the
    // tenant's lock is held until the COMMIT arrives.
    const written: string[] = [];
    const sql = watchedPool((text) => {
      if (text.includes('commit')) written.push('commit');
    });
    try {
      await sql.begin(async (tx) => {
        await tx`select 1`;
        setImmediate(() => written.push('immediate'));
      });
      expect(written).toEqual(['commit', 'immediate']);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });
});

describe('postgres.js: a statement leaves when the code that made it has run', () => {
  it('reaches the socket with the statements made beside it, before an immediate queued then', async () => {
    // Unpatched, the driver writes from a setImmediate of its own, queued only once the statement
    // is handled (a microtask later): behind this test's immediate, and behind every callback the
    // event loop's next poll brings (other requests' work, in the service).
    const written: string[] = [];
    const sql = watchedPool((text) => {
      const markers = text.match(/at_tick_end_\w/g);
      if (markers) written.push(markers.join('+'));
    });
    try {
      await sql`select 1`;
      const both = Promise.all([sql`select 'at_tick_end_a' as m`, sql`select 'at_tick_end_b' as m`]);
      setImmediate(() => written.push('immediate'));
      const [[a], [b]] = await both;
      expect([a?.m, b?.m]).toEqual(['at_tick_end_a', 'at_tick_end_b']);
      expect(written).toEqual(['at_tick_end_a+at_tick_end_b', 'immediate']);
    } finally {
      await sql.end({ timeout: 1 });
    }
  });
});
