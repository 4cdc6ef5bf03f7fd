import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type postgres from 'postgres';
import { v7 as uuidv7 } from 'uuid';

/*
 * The import scenarios of bench/rosters.ts: a file of new addresses into an empty tenant, posted
 * as an administrator would (dry run, then apply), timed from the POST to the end of the import;
 * and the floor it is judged against, a bare COPY of the same rows into the same tables.
 */

export type RosterFile = { rows: number; csv: string; emails: string[]; names: string[]; roles: string[] };

/** `rows` new people, 90 % students and 10 % teachers, with names: what a school's first import holds. */
export function rosterFile(rows: number, tag: string): RosterFile {
  const emails: string[] = [];
  const names: string[] = [];
  const roles: string[] = [];
  const lines = ['email,role,givenName,familyName'];
  for (let i = 0; i < rows; i++) {
    const email = `roster-${tag}-${i}@bench.test`;
    const role = i % 10 === 0 ? 'TEACHER' : 'STUDENT';
    const [given, family] = [`Given${i}`, `Family ${tag} ${i}`];
    emails.push(email);
    names.push(`${given} ${family}`);
    roles.push(role);
    lines.push(`${email},${role},${given},${family}`);
  }
  return { rows, csv: `${lines.join('\n')}\n`, emails, names, roles };
}

/** An empty tenant whose OWNER is the user of `ownerSubject` (the bench's token signs for it). */
export async function emptyTenant(sql: postgres.Sql, ownerSubject: string, tag: string): Promise<string> {
  const tenantId = uuidv7();
  await sql.begin(async (tx) => {
    await tx`insert into tenants (id, slug, name) values (${tenantId}, ${`roster-bench-${tag}`}, ${`Roster bench ${tag}`})`;
    await tx`insert into tenant_memberships (id, tenant_id, user_id, role)
      select ${uuidv7()}, ${tenantId}, id, 'OWNER' from users where subject = ${ownerSubject}`;
  });
  return tenantId;
}

class Rollback extends Error {}

/** A thousand lines a write: one write per line would time postgres.js's writes more than the COPY. */
function* inBatches(lines: string[]): Generator<string> {
  for (let i = 0; i < lines.length; i += 1000) yield lines.slice(i, i + 1000).join('');
}

/**
 * The floor: the file's users and memberships COPYed into the tables the import fills, with their
 * indexes, constraints and triggers, in a transaction rolled back (so the import can then add the
 * same addresses). Timed from BEGIN to the end of the second COPY, the data's transfer included,
 * as the import's upload is. No rule is checked, no event written: the least the rows can cost.
 */
export async function bareCopySeconds(
  sql: postgres.Sql,
  file: RosterFile,
  tenantId: string,
): Promise<number> {
  const userIds = file.emails.map(() => uuidv7());
  let seconds = 0;
  const started = performance.now();
  await sql
    .begin(async (tx) => {
      const users = await tx`copy users (id, email, email_canonical) from stdin`.writable();
      await pipeline(
        Readable.from(inBatches(file.emails.map((email, i) => `${userIds[i]}\t${email}\t${email}\n`))),
        users,
      );
      const memberships =
        await tx`copy tenant_memberships (id, tenant_id, user_id, role, invited_display_name) from stdin`.writable();
      const lines = file.emails.map(
        (_, i) => `${uuidv7()}\t${tenantId}\t${userIds[i]}\t${file.roles[i]}\t${file.names[i]}\n`,
      );
      await pipeline(Readable.from(inBatches(lines)), memberships);
      seconds = (performance.now() - started) / 1000;
      throw new Rollback();
    })
    .catch((error: unknown) => {
      if (!(error instanceof Rollback)) throw error;
    });
  return seconds;
}

type RosterImport = {
  importId: string;
  status: string;
  summary: Record<string, number>;
  failure: { code: string; message: string } | null;
};

export type ImportTiming = {
  /** From the POST to the answer (200) or to the poll that saw it finished (202). */
  seconds: number;
  /** From the POST to its answer: the upload, and the file read and checked (all of it, for a 200). */
  answeredSeconds: number;
  /** The POST's status: 200 or 202. */
  answered: number;
  result: RosterImport;
};

/** Often enough that the time it adds is small against the imports timed; rarely enough to cost nothing. */
const POLL_MS = 50;

/** POSTs the file and follows a 202 to its end. */
export async function timeImport(
  serviceUrl: string,
  token: string,
  tenantId: string,
  file: RosterFile,
  dryRun: boolean,
): Promise<ImportTiming> {
  const headers = { authorization: `Bearer ${token}` };
  const started = performance.now();
  const posted = await fetch(`${serviceUrl}/tenants/${tenantId}/roster-imports?mode=add&dryRun=${dryRun}`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'text/csv' },
    body: file.csv,
  });
  const first = (await posted.json()) as { data?: RosterImport };
  const answeredSeconds = (performance.now() - started) / 1000;
  if ((posted.status !== 200 && posted.status !== 202) || !first.data)
    throw new Error(`roster import: HTTP ${posted.status} ${JSON.stringify(first).slice(0, 300)}`);
  let result = first.data;
  while (result.status === 'QUEUED' || result.status === 'RUNNING') {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const polled = await fetch(`${serviceUrl}/tenants/${tenantId}/roster-imports/${result.importId}`, {
      headers,
    });
    const body = (await polled.json()) as { data?: RosterImport };
    if (polled.status !== 200 || !body.data) throw new Error(`roster import poll: HTTP ${polled.status}`);
    result = body.data;
  }
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== 'SUCCEEDED' || result.failure || result.summary.create !== file.rows)
    throw new Error(
      `roster import did not do what the bench expects: ${JSON.stringify(result).slice(0, 500)}`,
    );
  return { seconds, answeredSeconds, answered: posted.status, result };
}
