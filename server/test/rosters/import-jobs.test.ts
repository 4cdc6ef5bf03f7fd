import { setImmediate as turn } from 'node:timers/promises';
import { emptyRosterSummary, ROSTER_ROWS_IN_REQUEST_MAX } from '@tms/contract';
import { eq, sql } from 'drizzle-orm';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rosterImports } from '../../src/db/schema.js';
import { createLogger } from '../../src/logger.js';
import { RosterJobs } from '../../src/modules/rosters/roster-jobs.js';
import { addMember, createTenantFixture, type TenantFixture, unique } from '../support/factories.js';
import {
  answerOf,
  csvOf,
  importOf,
  membersOf,
  postCsv,
  type RosterServer,
  startRosterServer,
  students,
} from './import-helpers.js';

/** Files past ROSTER_ROWS_IN_REQUEST_MAX rows: 202, the background, GET, and a server that stops or dies. */
let h: RosterServer;
beforeAll(async () => {
  h = await startRosterServer();
});
afterAll(() => h?.close());

const LARGE = ROSTER_ROWS_IN_REQUEST_MAX + 1;
const largeFile = (prefix = unique('big'), extra: string[] = []) =>
  csvOf('email,role', ...students(LARGE - extra.length, prefix), ...extra);

const status = (server: RosterServer, t: TenantFixture, importId: string) =>
  importOf(server, t.tenantId, importId, t.owner.token).then(({ body }) => body.data);

/** A heartbeat that stopped an hour ago: the process that ran the import died. */
const stopHeartbeat = (server: RosterServer, importId: string) =>
  server.db
    .update(rosterImports)
    .set({ heartbeatAt: sql`now() - interval '1 hour'` })
    .where(eq(rosterImports.id, importId));

describe('a large file', () => {
  it('answers 202 with a Location, runs in the background with progress, then SUCCEEDED', async () => {
    const t = await createTenantFixture(h);
    const started = h.holds.at('started');
    const checked = h.holds.at('checked');
    const res = await postCsv(h, t.tenantId, largeFile(), { token: t.owner.token });
    const { status: code, body } = await answerOf(res);
    expect(code).toBe(202);
    const { importId } = body.data;
    expect(res.headers.get('location')).toBe(`/tenants/${t.tenantId}/roster-imports/${importId}`);
    expect(body.data).toMatchObject({
      status: 'QUEUED',
      progress: { rowsRead: 0, rowsTotal: LARGE },
      finishedAt: null,
    });

    expect(await started.reached).toBe(importId);
    expect(await status(h, t, importId)).toMatchObject({
      status: 'RUNNING',
      progress: { rowsRead: 0, rowsTotal: LARGE },
    });
    started.release();
    await checked.reached;
    expect(await status(h, t, importId)).toMatchObject({
      status: 'RUNNING',
      progress: { rowsRead: LARGE, rowsTotal: LARGE },
    });
    checked.release();
    await h.jobs.idle();

    const done = await status(h, t, importId);
    expect(done).toMatchObject({
      status: 'SUCCEEDED',
      summary: { create: LARGE, invalid: 0 },
      failure: null,
    });
    expect(done.finishedAt).not.toBeNull();
    expect(await membersOf(h.db, t.tenantId)).toHaveLength(LARGE + 1);
  });

  it('with an invalid row: FAILED with its errors, nothing applied', async () => {
    const t = await createTenantFixture(h);
    const res = await answerOf(
      await postCsv(h, t.tenantId, largeFile(unique('bad'), ['nobody,student']), { token: t.owner.token }),
    );
    expect(res.status).toBe(202);
    await h.jobs.idle();
    expect(await status(h, t, res.body.data.importId)).toMatchObject({
      status: 'FAILED',
      summary: { create: LARGE - 1, invalid: 1 },
      errors: [expect.objectContaining({ row: LARGE + 1, column: 'email', code: 'INVALID_EMAIL' })],
      failure: { code: 'ROSTER_INVALID' },
    });
    expect(await membersOf(h.db, t.tenantId)).toHaveLength(1);
  });

  it('as a dry run: what applying would do, nothing changed', async () => {
    const t = await createTenantFixture(h);
    const res = await answerOf(
      await postCsv(h, t.tenantId, largeFile(), { token: t.owner.token, query: 'dryRun=true' }),
    );
    await h.jobs.idle();
    expect(await status(h, t, res.body.data.importId)).toMatchObject({
      status: 'SUCCEEDED',
      dryRun: true,
      summary: { create: LARGE },
    });
    expect(await membersOf(h.db, t.tenantId)).toHaveLength(1);
  });

  it('fails when its caller lost the right to import before it ran', async () => {
    const t = await createTenantFixture(h);
    const admin = await addMember(h, t.tenantId, 'ADMIN');
    const started = h.holds.at('started');
    const res = await answerOf(await postCsv(h, t.tenantId, largeFile(), { token: admin.actor.token }));
    await started.reached;
    const demoted = await fetch(`${h.baseUrl}/tenants/${t.tenantId}/memberships/${admin.membershipId}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${t.owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ role: 'TEACHER' }),
    });
    expect(demoted.status).toBe(200);
    started.release();
    await h.jobs.idle();
    expect(await status(h, t, res.body.data.importId)).toMatchObject({
      status: 'FAILED',
      failure: { message: expect.stringMatching(/OWNER or ADMIN/) },
    });
    expect(await membersOf(h.db, t.tenantId)).toHaveLength(2);
  });
});

describe('a process that dies or stops', () => {
  it('an import whose heartbeat stopped is FAILED (interrupted) when seen; a live one is not', async () => {
    const t = await createTenantFixture(h);
    const row = (status: 'QUEUED' | 'RUNNING') => ({
      id: uuidv7(),
      tenantId: t.tenantId,
      actorUserId: t.owner.userId,
      mode: 'add' as const,
      dryRun: false,
      status,
      rowsTotal: LARGE,
      summary: emptyRosterSummary(),
    });
    const [dead, alive] = [row('RUNNING'), row('QUEUED')];
    await h.db.insert(rosterImports).values([dead, alive]);
    await stopHeartbeat(h, dead.id);
    expect(await status(h, t, dead.id)).toMatchObject({
      status: 'FAILED',
      failure: { code: 'INTERNAL_ERROR', message: expect.stringMatching(/^interrupted/) },
    });
    expect(await status(h, t, alive.id)).toMatchObject({ status: 'QUEUED', failure: null });
    // A process starting on its own database (PGlite) fails what a dead one left, however fresh.
    const sweeper = new RosterJobs({ db: h.db, logger: createLogger('silent'), exclusive: true });
    await sweeper.start();
    await sweeper.stop(Promise.resolve());
    expect(await status(h, t, alive.id)).toMatchObject({ status: 'FAILED' });
  });

  it('the heartbeat of a running import moves on', async () => {
    const s = await startRosterServer({ database: h.database });
    const t = await createTenantFixture(s);
    const checked = s.holds.at('checked');
    const { body } = await answerOf(await postCsv(s, t.tenantId, largeFile(), { token: t.owner.token }));
    await checked.reached;
    await stopHeartbeat(s, body.data.importId);
    await s.jobs.beat();
    expect(await status(s, t, body.data.importId)).toMatchObject({ status: 'RUNNING' });
    checked.release();
    await s.jobs.idle();
    await s.close();
  });

  it('stop() waits for a running import, refuses new ones, and fails those not begun', async () => {
    const s = await startRosterServer({ database: h.database, jobs: { concurrency: 1 } });
    const t = await createTenantFixture(s);
    const checked = s.holds.at('checked');
    const first = await answerOf(await postCsv(s, t.tenantId, largeFile(), { token: t.owner.token }));
    await checked.reached;
    const second = await answerOf(await postCsv(s, t.tenantId, largeFile(), { token: t.owner.token }));
    expect(second.body.data.status).toBe('QUEUED');
    let stopped = false;
    const stopping = s.jobs.stop(new Promise(() => {})).then(() => {
      stopped = true;
    });
    const refused = await answerOf(await postCsv(s, t.tenantId, largeFile(), { token: t.owner.token }));
    expect(refused).toMatchObject({ status: 503, body: { error: { code: 'SERVICE_UNAVAILABLE' } } });
    await turn();
    expect(stopped).toBe(false);
    checked.release();
    await stopping;
    await s.jobs.idle();
    expect(await status(s, t, first.body.data.importId)).toMatchObject({ status: 'SUCCEEDED' });
    expect(await status(s, t, second.body.data.importId)).toMatchObject({
      status: 'FAILED',
      failure: { message: expect.stringMatching(/stopped before the import began/) },
    });
    await s.close();
  });

  it('an import cut off by the end of the grace is rolled back, and FAILED once seen stale', async () => {
    const s = await startRosterServer({ database: h.database });
    const t = await createTenantFixture(s);
    const checked = s.holds.at('checked');
    const { body } = await answerOf(await postCsv(s, t.tenantId, largeFile(), { token: t.owner.token }));
    await checked.reached;
    await s.jobs.stop(Promise.resolve());
    expect(await status(s, t, body.data.importId)).toMatchObject({ status: 'RUNNING' });
    // The process is gone (its heartbeat stopped); another one sees the import.
    await stopHeartbeat(s, body.data.importId);
    expect(await status(h, t, body.data.importId)).toMatchObject({
      status: 'FAILED',
      failure: { code: 'INTERNAL_ERROR' },
    });
    // Were the cut-off import to go on after all, its end finds the answer given, and rolls back.
    checked.release();
    await s.jobs.idle();
    expect(await status(h, t, body.data.importId)).toMatchObject({ status: 'FAILED' });
    expect(await membersOf(h.db, t.tenantId)).toHaveLength(1);
    await s.close();
  });
});
