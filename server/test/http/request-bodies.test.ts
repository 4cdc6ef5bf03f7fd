import { connect, type Socket } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Actor,
  createActor,
  createSuperAdmin,
  createTenantFixture,
  type TenantFixture,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';

// What an attacker did with request bodies: declared or streamed far more than the limit, sent
// bodies the server should never have read (refused requests), and invalid UTF-8.

const LIMIT = 100 * 1024;
/** Far more than the kernel buffers a stalled connection (a few MB here): a server that has not
 * stopped reading takes it all in a fraction of a second. */
const BOUND = 16 * 1024 * 1024;
/** Only a guard against a hang: the harness answers 503 at its 4 s deadline, well after this. */
const GUARD_MS = 2_500;
const MISSING = '01900000-0000-7000-8000-000000000000';

let h: TestServer;
let port: number;
let admin: Actor;
let tenant: TenantFixture;
let stranger: Actor;
beforeAll(async () => {
  h = await startTestServer();
  port = Number(new URL(h.baseUrl).port);
  admin = await createSuperAdmin(h);
  tenant = await createTenantFixture(h);
  stranger = await createActor(h);
});
afterAll(() => h?.close());

type Answer = { status: number; headers: Record<string, string>; body: string; interim: number[] };

/** Responses parsed out of everything received so far: 1xx ones as `interim`, then one final one. */
function parseAnswer(raw: Buffer): Answer | undefined {
  const interim: number[] = [];
  let offset = 0;
  for (;;) {
    const end = raw.indexOf('\r\n\r\n', offset);
    if (end < 0) return undefined;
    const [statusLine = '', ...lines] = raw.subarray(offset, end).toString('latin1').split('\r\n');
    const status = Number(statusLine.split(' ')[1]);
    offset = end + 4;
    if (status < 200) {
      interim.push(status);
      continue;
    }
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (raw.length < offset + length) return undefined;
    return { status, headers, body: raw.subarray(offset, offset + length).toString('utf8'), interim };
  }
}

/**
 * A raw connection: fetch and node:http cannot send a body without end, read interim answers, or
 * tell how much of a body the server took. The socket is never half-closed (the server would then
 * not answer).
 */
function open() {
  const socket: Socket = connect(port, '127.0.0.1');
  let received = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
  });
  // A server that closes while we write makes EPIPE/ECONNRESET: that is what some tests expect.
  socket.on('error', () => {});
  // Not events.once: it rejects on 'error', which a refused connection may well emit.
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));

  /** Resolves once `test` holds for the bytes received; rejects after the guard. */
  const until = <T>(test: (raw: Buffer) => T | undefined, what: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const value = test(received);
        if (value === undefined) return false;
        finish();
        resolve(value);
        return true;
      };
      const timer = setTimeout(() => {
        finish();
        reject(
          new Error(
            `no ${what} within ${GUARD_MS} ms; received ${JSON.stringify(received.toString('latin1').slice(0, 300))}`,
          ),
        );
      }, GUARD_MS);
      const finish = () => {
        clearTimeout(timer);
        socket.off('data', check);
      };
      if (!check()) socket.on('data', check);
    });

  return {
    socket,
    answer: () => until(parseAnswer, 'answer'),
    /** The head of the first answer, interim or final. */
    firstHead: () =>
      until((raw) => {
        const end = raw.indexOf('\r\n\r\n');
        return end < 0 ? undefined : raw.subarray(0, end + 4).toString('latin1');
      }, 'first answer'),
    closed: () =>
      Promise.race([
        closed,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error(`connection still open after ${GUARD_MS} ms`)), GUARD_MS).unref(),
        ),
      ]),
    /** Writes `chunk` again and again while the server takes it: up to `max` bytes, or until it closes. */
    async pump(chunk: Buffer, max = BOUND): Promise<number> {
      let written = 0;
      while (written < max && !socket.destroyed) {
        written += chunk.length;
        if (!socket.write(chunk))
          await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), closed]);
      }
      return written;
    },
  };
}

function head(method: string, path: string, headers: Record<string, string | undefined>): Buffer {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1'];
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined) lines.push(`${name}: ${value}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

const bearer = (token: string) => `Bearer ${token}`;
const chunk = (data: Buffer) =>
  Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]);
const tenantPath = () => `/admin/tenants/${tenant.tenantId}`;

function expectEnvelope(answer: Answer, status: number, code: string) {
  expect(answer.status, answer.body).toBe(status);
  expect(JSON.parse(answer.body)).toEqual({
    success: false,
    error: { code, message: expect.any(String), requestId: answer.headers['x-request-id'] },
  });
}

async function tenantName(): Promise<string> {
  const res = await fetch(`${h.baseUrl}${tenantPath()}`, { headers: { authorization: bearer(admin.token) } });
  return ((await res.json()) as { data: { name: string } }).data.name;
}

describe('request bodies', () => {
  // Item 3: the declared size was ignored, the server waited for the body and answered 503 at 4 s.
  it('refuses a Content-Length over the limit with 413 before the body is sent', async () => {
    const conn = open();
    conn.socket.write(
      head('PATCH', tenantPath(), {
        authorization: bearer(admin.token),
        'content-type': 'application/json',
        'content-length': '1000000000',
      }),
    );
    conn.socket.write('{"name":"');
    const answer = await conn.answer();
    expectEnvelope(answer, 413, 'PAYLOAD_TOO_LARGE');
    expect(answer.headers.connection).toBe('close');
    await conn.closed();
  });

  // Item 4: a chunked body was read past the limit without end, and never answered.
  it('stops reading a chunked body at the limit, answers 413 and closes the connection', async () => {
    const conn = open();
    conn.socket.write(
      head('PATCH', tenantPath(), {
        authorization: bearer(admin.token),
        'content-type': 'application/json',
        'transfer-encoding': 'chunked',
      }),
    );
    conn.socket.write(chunk(Buffer.from('{"name":"')));
    const written = conn.pump(chunk(Buffer.alloc(64 * 1024, 'a')));
    const answer = await conn.answer();
    expectEnvelope(answer, 413, 'PAYLOAD_TOO_LARGE');
    expect(answer.headers.connection).toBe('close');
    await conn.closed();
    expect(await written).toBeLessThan(BOUND);
  });

  it('still takes a chunked body at the limit', async () => {
    const name = `Chunked ${'b'.repeat(50)}`;
    const json = Buffer.from(JSON.stringify({ name }));
    const padded = Buffer.concat([
      json.subarray(0, -1),
      Buffer.alloc(LIMIT - json.length, ' '),
      Buffer.from('}'),
    ]);
    expect(padded.length).toBe(LIMIT);
    const conn = open();
    conn.socket.write(
      Buffer.concat([
        head('PATCH', tenantPath(), {
          authorization: bearer(admin.token),
          'content-type': 'application/json',
          'transfer-encoding': 'chunked',
        }),
        chunk(padded.subarray(0, 1000)),
        chunk(padded.subarray(1000)),
        Buffer.from('0\r\n\r\n'),
      ]),
    );
    const answer = await conn.answer();
    expect(answer.status, answer.body).toBe(200);
    conn.socket.destroy();
    expect(await tenantName()).toBe(name);
  });

  // Item 5: after a 401 node drained the body (256 MB) to keep the connection alive. Any answer
  // given before the body was read must leave it unread and close the connection.
  const refusals: [
    string,
    () => { path: string; headers: Record<string, string | undefined> },
    number,
    string,
  ][] = [
    ['no token', () => ({ path: tenantPath(), headers: {} }), 401, 'UNAUTHENTICATED'],
    [
      'a bad token',
      () => ({ path: tenantPath(), headers: { authorization: 'Bearer x.y.z' } }),
      401,
      'UNAUTHENTICATED',
    ],
    [
      'a member who is not a super admin',
      () => ({ path: tenantPath(), headers: { authorization: bearer(tenant.owner.token) } }),
      403,
      'SUPER_ADMIN_REQUIRED',
    ],
    [
      'a stranger to the tenant',
      () => ({
        path: `/tenants/${tenant.tenantId}/memberships/${tenant.ownerMembershipId}`,
        headers: { authorization: bearer(stranger.token) },
      }),
      403,
      'TENANT_ACCESS_DENIED',
    ],
    [
      'an x-tenant-id that contradicts the URL',
      () => ({
        path: `/tenants/${tenant.tenantId}/memberships/${tenant.ownerMembershipId}`,
        headers: { authorization: bearer(tenant.owner.token), 'x-tenant-id': MISSING },
      }),
      400,
      'TENANT_ID_MISMATCH',
    ],
    [
      'an unknown route',
      () => ({ path: '/no/such/route', headers: { authorization: bearer(admin.token) } }),
      404,
      'ROUTE_NOT_FOUND',
    ],
    [
      'a body that is not JSON',
      () => ({
        path: tenantPath(),
        headers: { authorization: bearer(admin.token), 'content-type': 'text/plain' },
      }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ],
  ];
  it.each(refusals)(
    'does not read the body of a request refused for %s',
    async (_, request, status, code) => {
      const { path, headers } = request();
      const conn = open();
      conn.socket.write(
        head('PATCH', path, {
          'content-type': 'application/json',
          ...headers,
          'content-length': String(256 * 1024 * 1024),
        }),
      );
      const written = conn.pump(Buffer.alloc(64 * 1024, 'a'));
      const answer = await conn.answer();
      expectEnvelope(answer, status, code);
      // The pump stops when the server closes: a server that drains the body takes all of BOUND.
      expect(await written).toBeLessThan(BOUND);
      expect(answer.headers.connection).toBe('close');
      await conn.closed();
    },
  );

  // Item 5: node answered `100 Continue` on its own, inviting the body before the token was checked.
  it('answers Expect: 100-continue with the refusal, not 100 Continue, when the token is missing', async () => {
    const conn = open();
    conn.socket.write(
      head('PATCH', tenantPath(), {
        'content-type': 'application/json',
        'content-length': '20',
        expect: '100-continue',
      }),
    );
    const answer = await conn.answer();
    expect(answer.interim).toEqual([]);
    expectEnvelope(answer, 401, 'UNAUTHENTICATED');
    expect(answer.headers.connection).toBe('close');
    await conn.closed();
  });

  it('answers 100 Continue once the caller may send the body, then takes it', async () => {
    const name = `Continued ${Date.now()}`;
    const body = Buffer.from(JSON.stringify({ name }));
    const conn = open();
    conn.socket.write(
      head('PATCH', tenantPath(), {
        authorization: bearer(admin.token),
        'content-type': 'application/json',
        'content-length': String(body.length),
        expect: '100-continue',
      }),
    );
    expect(await conn.firstHead()).toBe('HTTP/1.1 100 Continue\r\n\r\n');
    conn.socket.write(body);
    const answer = await conn.answer();
    expect(answer.interim).toEqual([100]);
    expect(answer.status, answer.body).toBe(200);
    conn.socket.destroy();
    expect(await tenantName()).toBe(name);
  });

  // Item 13: invalid UTF-8 was decoded into U+FFFD and stored.
  it.each([
    ['a stray continuation byte', [0x80]],
    ['an invalid lead byte', [0xff]],
    ['an overlong slash', [0xc0, 0xaf]],
    ['an encoded surrogate', [0xed, 0xa0, 0x80]],
    ['a truncated sequence', [0xe2, 0x82]],
  ])('refuses a JSON body with %s as INVALID_JSON', async (_, bytes) => {
    const before = await tenantName();
    const res = await fetch(`${h.baseUrl}${tenantPath()}`, {
      method: 'PATCH',
      headers: { authorization: bearer(admin.token), 'content-type': 'application/json' },
      body: Buffer.concat([Buffer.from('{"name":"Caf'), Buffer.from(bytes), Buffer.from('"}')]),
    });
    const body = (await res.json()) as { error?: { code: string; requestId: string } };
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(body).toEqual({
      success: false,
      error: {
        code: 'INVALID_JSON',
        message: expect.any(String),
        requestId: res.headers.get('x-request-id'),
      },
    });
    expect(await tenantName()).toBe(before);
  });

  // A tenant write whose small body came whole with its headers is decided under the tenant's lock
  // (one statement fewer): what is wrong with its body is still told only to a caller who may write.
  it.each([
    ['a body that is not JSON', 'text/plain', '{"role":"STUDENT","email":"a@school.test"}'],
    ['broken JSON', 'application/json', '{"role":"STUDENT","email":'],
    ['a body that fails the contract', 'application/json', '{"role":"EMPEROR","email":"a@school.test"}'],
  ])('refuses a stranger 403 before what is wrong with its whole body: %s', async (_, type, text) => {
    const res = await fetch(`${h.baseUrl}/tenants/${tenant.tenantId}/memberships`, {
      method: 'POST',
      headers: { authorization: bearer(stranger.token), 'content-type': type },
      body: text,
    });
    const body = (await res.json()) as { error?: { code: string } };
    expect([res.status, body.error?.code]).toEqual([403, 'TENANT_ACCESS_DENIED']);
  });

  // Issue 25: a write whose body is still arriving must hold no transaction, lock or connection:
  // the tenant's other writes go through meanwhile, and the stalled one completes afterwards.
  it('holds nothing while an authorised body is still arriving: the tenant is written meanwhile', async () => {
    const memberships = `/tenants/${tenant.tenantId}/memberships`;
    const body = Buffer.from(JSON.stringify({ role: 'STUDENT', email: `stalled-${Date.now()}@school.test` }));
    const conn = open();
    conn.socket.write(
      Buffer.concat([
        head('POST', memberships, {
          authorization: bearer(tenant.owner.token),
          'content-type': 'application/json',
          'content-length': String(body.length),
        }),
        body.subarray(0, 10),
      ]),
    );
    // Decided, and now waiting for the rest: no transaction of the service's is open.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const result: unknown = await h.db.execute(
      sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'`,
    );
    const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { n: number }[];
    expect(rows[0]?.n ?? 0, 'transactions open while the body arrives').toBe(0);
    // Another write of the same tenant goes through at once.
    const started = Date.now();
    const other = await fetch(`${h.baseUrl}${memberships}`, {
      method: 'POST',
      headers: { authorization: bearer(tenant.owner.token), 'content-type': 'application/json' },
      body: JSON.stringify({ role: 'STUDENT', email: `meanwhile-${Date.now()}@school.test` }),
    });
    expect(other.status).toBe(201);
    expect(Date.now() - started).toBeLessThan(1000);
    // The rest arrives: the stalled write is made.
    conn.socket.write(body.subarray(10));
    const answer = await conn.answer();
    expect(answer.status).toBe(201);
    conn.socket.destroy();
  });

  it('takes valid UTF-8, even with a character split across chunks', async () => {
    const name = `Café 日本 ${Date.now()}`;
    const json = Buffer.from(JSON.stringify({ name }));
    const split = json.indexOf(Buffer.from('日')) + 1;
    const conn = open();
    conn.socket.write(
      Buffer.concat([
        head('PATCH', tenantPath(), {
          authorization: bearer(admin.token),
          'content-type': 'application/json; charset=utf-8',
          'transfer-encoding': 'chunked',
        }),
        chunk(json.subarray(0, split)),
      ]),
    );
    // A separate write so the server sees the character's bytes in two reads.
    await new Promise((resolve) => setTimeout(resolve, 20));
    conn.socket.write(Buffer.concat([chunk(json.subarray(split)), Buffer.from('0\r\n\r\n')]));
    const answer = await conn.answer();
    expect(answer.status, answer.body).toBe(200);
    conn.socket.destroy();
    expect(await tenantName()).toBe(name);
  });
});
