import { type IncomingMessage, request } from 'node:http';
import { Writable } from 'node:stream';
import { type ExportMembershipsQuery, ROSTER_EXPORT_COLUMNS } from '@tms/contract';
import { parse } from 'csv-parse/sync';
import { sql } from 'drizzle-orm';
import type { Database } from '../../src/db/database.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { unique } from '../support/factories.js';
import type { TestServer } from '../support/harness.js';

export type Download = { status: number; headers: Headers; text: string };

type Query = Partial<Omit<ExportMembershipsQuery, 'status'>> & { status?: string | string[] };

export const exportPath = (tenantId: string, query: Query = {}) => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    for (const one of [value].flat()) if (one !== undefined) search.append(key, String(one));
  const qs = search.toString();
  return `/tenants/${tenantId}/memberships/export${qs ? `?${qs}` : ''}`;
};

/** The whole download, as a browser or a script would fetch it. */
export async function download(
  h: TestServer,
  token: string | undefined,
  tenantId: string,
  query: Query = {},
): Promise<Download> {
  const res = await fetch(`${h.baseUrl}${exportPath(tenantId, query)}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  // Decoded by hand: `res.text()` drops a byte order mark, which is part of what is tested.
  return {
    status: res.status,
    headers: res.headers,
    text: Buffer.from(await res.arrayBuffer()).toString('utf8'),
  };
}

/** The CSV's lines as the import reads them: the header names the cells (a BOM is not part of it). */
export const csvRecords = (text: string): Record<string, string>[] =>
  parse(text, { bom: true, columns: true, skip_empty_lines: true });

export const ndjsonRecords = (text: string): Record<string, string | null>[] =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));

export const EXPORT_COLUMNS = [...ROSTER_EXPORT_COLUMNS];

/**
 * `count` STUDENTs, each a user of their own, made in one statement (a few thousand through the
 * API would take minutes). `nameLength` pads the display names: fatter rows fill socket buffers sooner.
 */
export async function seedStudents(
  db: Database,
  tenantId: string,
  count: number,
  nameLength = 0,
): Promise<void> {
  const prefix = unique('seed');
  await db.execute(sql`
    with new_users as (
      insert into users (id, subject, email, email_canonical, display_name)
      select gen_random_uuid(), ${prefix} || '-' || i, ${prefix} || '-' || i || '@example.test',
        ${prefix} || '-' || i || '@example.test', 'Seed ' || i || ' ' || repeat('x', ${nameLength}::int)
      from generate_series(1, ${count}::int) i
      returning id
    )
    insert into tenant_memberships (id, tenant_id, user_id, role)
    select gen_random_uuid(), ${tenantId}, id, 'STUDENT' from new_users`);
}

/** A logger whose lines a test can wait for: `next(msg)` resolves with the first line of that message. */
export function capturingLogger(): { logger: Logger; next(msg: string): Promise<Record<string, unknown>> } {
  const seen: Record<string, unknown>[] = [];
  const waiting: { msg: string; resolve(line: Record<string, unknown>): void }[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const text of String(chunk).split('\n').filter(Boolean)) {
        const line = JSON.parse(text) as Record<string, unknown>;
        seen.push(line);
        for (const w of waiting.splice(0)) {
          if (w.msg === line.msg) w.resolve(line);
          else waiting.push(w);
        }
      }
      done();
    },
  });
  return {
    logger: createLogger('info', sink),
    next: (msg) => {
      const found = seen.find((line) => line.msg === msg);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiting.push({ msg, resolve }));
    },
  };
}

/**
 * A download read by hand: the first chunk, then the response is left unread (paused), so the
 * server's writes back up. `resume()` reads the rest; `abort()` cuts the connection.
 */
export async function pausedDownload(h: TestServer, token: string, tenantId: string) {
  const url = new URL(`${h.baseUrl}${exportPath(tenantId)}`);
  const req = request(url, { headers: { authorization: `Bearer ${token}` } });
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve).once('error', reject).end();
  });
  // Paused in the listener itself: the chunks after it stay in the response's buffer, unread.
  const first = await new Promise<Buffer>((resolve) =>
    res.once('data', (chunk: Buffer) => {
      res.pause();
      resolve(chunk);
    }),
  );
  return {
    status: res.statusCode,
    first: first.toString('utf8'),
    abort: () => req.destroy(),
    /** The rest of the body; rejects when the server cut the connection before the end. */
    resume: () =>
      new Promise<string>((resolve, reject) => {
        let rest = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          rest += chunk;
        });
        res.once('end', () => resolve(rest));
        res.once('error', reject);
        res.once('aborted', () => reject(new Error('aborted')));
        res.resume();
      }),
  };
}
