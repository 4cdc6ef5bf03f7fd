import { request } from 'node:http';
import { ROSTER_BYTES_MAX, ROSTER_ROWS_MAX } from '@tms/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createTenantFixture, type TenantFixture, unique } from '../support/factories.js';
import type { Json } from '../support/json.js';
import {
  answerOf,
  csvOf,
  membersOf,
  postCsv,
  postRows,
  type RosterServer,
  startRosterServer,
  students,
} from './import-helpers.js';

/** The route as HTTP: media types, limits, the order of the checks, the lock and the deadline while a body arrives. */
let h: RosterServer;
let t: TenantFixture;
beforeAll(async () => {
  h = await startRosterServer();
  t = await createTenantFixture(h);
});
afterAll(() => h?.close());

type Answer = { status: number; body: Json };

/**
 * A POST written by hand: `Expect: 100-continue`, then the body only when the server asks for it,
 * in the parts the test sends. `continued` resolves when the server asked; `answer` when it answered.
 */
function upload(path: string, token: string, headers: Record<string, string | number> = {}) {
  const { port } = new URL(h.baseUrl);
  const req = request({
    host: '127.0.0.1',
    port,
    path,
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'text/csv',
      expect: '100-continue',
      ...headers,
    },
  });
  let asked = false;
  const continued = new Promise<void>((resolve) =>
    req.once('continue', () => {
      asked = true;
      resolve();
    }),
  );
  const answer = new Promise<Answer & { asked: boolean }>((resolve, reject) => {
    req.once('error', reject);
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()), asked }),
      );
    });
  });
  req.flushHeaders();
  return { req, continued, answer };
}

const importsPath = (tenantId: string, query = '') => `/tenants/${tenantId}/roster-imports${query}`;

describe('media types and sizes', () => {
  it.each([
    ['text/plain', 415],
    ['application/xml', 415],
    ['text/csv; charset=iso-8859-1', 415],
    ['text/csv; charset=utf-8', 200],
    ['text/csv', 200],
  ])('%s: %i', async (type, status) => {
    const csv = csvOf('email', `${unique('m')}@example.test`);
    const res = await postCsv(h, t.tenantId, csv, {
      token: t.owner.token,
      headers: { 'content-type': type },
    });
    expect(res.status).toBe(status);
    if (status === 415) expect((await answerOf(res)).body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('a compressed body is 415, and broken JSON 400', async () => {
    const gz = await postCsv(h, t.tenantId, 'x', {
      token: t.owner.token,
      headers: { 'content-encoding': 'gzip' },
    });
    expect(gz.status).toBe(415);
    const broken = await postCsv(h, t.tenantId, '{"rows": [', {
      token: t.owner.token,
      headers: { 'content-type': 'application/json' },
    });
    expect((await answerOf(broken)).body.error.code).toBe('INVALID_JSON');
  });

  it('a Content-Length over 10 MiB is 413 before a byte is read', async () => {
    const up = upload(importsPath(t.tenantId), t.owner.token, { 'content-length': ROSTER_BYTES_MAX + 1 });
    const answer = await up.answer;
    up.req.destroy();
    expect(answer).toMatchObject({
      status: 413,
      asked: false,
      body: { error: { code: 'PAYLOAD_TOO_LARGE' } },
    });
  });

  it('a body without a length is cut at 10 MiB: 413', async () => {
    const up = upload(importsPath(t.tenantId), t.owner.token);
    await up.continued;
    const line = Buffer.from(`${'x'.repeat(1023)}\n`);
    const mebibyte = Buffer.concat(Array.from({ length: 1024 }, () => line));
    up.req.write('email\n');
    let answered = false;
    const answer = up.answer.finally(() => {
      answered = true;
    });
    // Written until the server refuses; never more than one mebibyte past the limit.
    for (let sent = 0; !answered && sent <= ROSTER_BYTES_MAX + mebibyte.length; sent += mebibyte.length) {
      if (!up.req.write(mebibyte))
        await Promise.race([new Promise((resolve) => up.req.once('drain', resolve)), answer]);
    }
    expect(await answer).toMatchObject({ status: 413, body: { error: { code: 'PAYLOAD_TOO_LARGE' } } });
    up.req.destroy();
  });

  it(`more than ${ROSTER_ROWS_MAX} rows is 413, as CSV and as JSON`, async () => {
    const rows = students(ROSTER_ROWS_MAX + 1, unique('big'));
    const csv = await answerOf(
      await postCsv(h, t.tenantId, csvOf('email,role', ...rows), { token: t.owner.token }),
    );
    expect(csv.status).toBe(413);
    expect(csv.body.error.message).toMatch(/50,000-row/);
    const json = rows.map((row) => ({ email: row.split(',')[0] }));
    expect((await postRows(h, t.tenantId, json, { token: t.owner.token })).status).toBe(413);
  });
});

describe('the order of the checks, and the lock', () => {
  it('a caller without rights is refused before its body is asked for', async () => {
    const student = (await addMember(h, t.tenantId, 'STUDENT')).actor;
    const up = upload(importsPath(t.tenantId), student.token, { 'transfer-encoding': 'chunked' });
    const answer = await up.answer;
    up.req.destroy();
    expect(answer).toMatchObject({
      status: 403,
      asked: false,
      body: { error: { code: 'INSUFFICIENT_ROLE' } },
    });
  });

  it('a query that is not valid is refused before the body is asked for', async () => {
    const up = upload(importsPath(t.tenantId, '?mode=replace'), t.owner.token, {
      'transfer-encoding': 'chunked',
    });
    const answer = await up.answer;
    up.req.destroy();
    expect(answer).toMatchObject({
      status: 400,
      asked: false,
      body: { error: { code: 'VALIDATION_FAILED' } },
    });
  });

  it('holds no lock while the body arrives: single writes to the tenant go on meanwhile', async () => {
    const s = await createTenantFixture(h);
    const member = await addMember(h, s.tenantId, 'STUDENT');
    const email = `${unique('slow')}@example.test`;
    const up = upload(importsPath(s.tenantId), s.owner.token, { 'transfer-encoding': 'chunked' });
    await up.continued;
    up.req.write('email,role\n');
    // On PGlite a transaction held by the upload would keep this write waiting for ever.
    const patch = await fetch(`${h.baseUrl}/tenants/${s.tenantId}/memberships/${member.membershipId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${s.owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ role: 'TEACHER' }),
    });
    expect(patch.status).toBe(200);
    up.req.end(`${email},student\n`);
    expect(await up.answer).toMatchObject({
      status: 200,
      asked: true,
      body: { data: { summary: { create: 1 } } },
    });
    expect((await membersOf(h.db, s.tenantId)).map((m) => m.role).sort()).toEqual([
      'OWNER',
      'STUDENT',
      'TEACHER',
    ]);
  });
});

describe('the request deadline', () => {
  it('does not count the upload: a body slower than the deadline is read, then imported', async () => {
    const deadlineMs = 1000;
    const s = await startRosterServer({ database: h.database, requestTimeoutMs: deadlineMs });
    try {
      const school = await createTenantFixture(s);
      const { port } = new URL(s.baseUrl);
      const req = request({
        host: '127.0.0.1',
        port,
        path: importsPath(school.tenantId),
        method: 'POST',
        headers: { authorization: `Bearer ${school.owner.token}`, 'content-type': 'text/csv' },
      });
      const answer = new Promise<number>((resolve, reject) => {
        req.once('error', reject);
        req.once('response', (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
      });
      req.write('email,role\n');
      // The client takes longer than the deadline to send the rest: measured, not slept (other requests meanwhile).
      const started = performance.now();
      while (performance.now() - started < deadlineMs * 1.5)
        expect((await fetch(`${s.baseUrl}/health/live`)).status).toBe(200);
      req.end(`${unique('slow')}@example.test,student\n`);
      expect(await answer).toBe(200);
    } finally {
      await s.close();
    }
  });
});
