import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardianInvitations } from '../../src/db/schema.js';
import { createActor, unique } from '../support/factories.js';
import { sdkOf } from '../support/sdk.js';
import {
  answerOf,
  csvOf,
  eventsOf,
  postCsv,
  postRows,
  type RosterServer,
  schoolWith,
  startRosterServer,
} from './import-helpers.js';

/* A roster's guardian columns (docs/rosters.md): PENDING guardian invitations for student rows. */
let h: RosterServer;
beforeAll(async () => {
  h = await startRosterServer();
});
afterAll(() => h?.close());

const invitationsOf = (tenantId: string) =>
  h.db
    .select({
      email: guardianInvitations.email,
      relationship: guardianInvitations.relationship,
      status: guardianInvitations.status,
      source: guardianInvitations.source,
      studentUserId: guardianInvitations.studentUserId,
    })
    .from(guardianInvitations)
    .where(eq(guardianInvitations.tenantId, tenantId))
    .orderBy(asc(guardianInvitations.id));

describe('guardian columns', () => {
  it('plan in a dry run, and invite on apply, new students and existing ones, once', async () => {
    const s = await schoolWith(h, 1);
    const existing = s.emails[2] as string;
    const tag = unique('g');
    const csv = csvOf(
      'Email,Role,guardian_email,Guardian_Relationship',
      `${tag}-new@example.test,student,${tag}-mum@example.test,parent`,
      `${existing},student,${tag}-dad@example.test,`,
      `${tag}-alone@example.test,student,,`,
    );
    const dry = await answerOf(
      await postCsv(h, s.tenantId, csv, { token: s.owner.token, query: 'dryRun=true' }),
    );
    expect(dry.status).toBe(200);
    expect(dry.body.data.summary).toMatchObject({
      create: 2,
      unchanged: 1,
      guardianInvitations: 2,
      invalid: 0,
    });
    expect(await invitationsOf(s.tenantId)).toEqual([]);

    const applied = await answerOf(await postCsv(h, s.tenantId, csv, { token: s.owner.token }));
    expect(applied.body.data.summary).toMatchObject({ guardianInvitations: 2 });
    const made = await invitationsOf(s.tenantId);
    expect(
      made.map(({ email, relationship, status, source }) => [email, relationship, status, source]),
    ).toEqual([
      [`${tag}-mum@example.test`, 'PARENT', 'PENDING', 'ROSTER'],
      [`${tag}-dad@example.test`, 'GUARDIAN', 'PENDING', 'ROSTER'],
    ]);
    const actions = (await eventsOf(h.db, s.tenantId)).map((e) => e.action);
    expect(actions.filter((a) => a === 'guardian_invitation.created')).toHaveLength(2);

    // The same file again: nothing new, not even a second invitation.
    const again = await answerOf(await postCsv(h, s.tenantId, csv, { token: s.owner.token }));
    expect(again.body.data.summary).toMatchObject({ create: 0, unchanged: 3, guardianInvitations: 0 });
    expect(await invitationsOf(s.tenantId)).toHaveLength(2);
  });

  it("makes an accepted roster invitation's link ROSTER, and passes over an ACTIVE guardian", async () => {
    const s = await schoolWith(h, 0);
    const parent = await createActor(h);
    const tag = unique('r');
    const student = `${tag}-kid@example.test`;
    const row = {
      email: student,
      role: 'STUDENT',
      guardianEmail: parent.email,
      guardianRelationship: 'Relative',
    };
    await answerOf(await postRows(h, s.tenantId, [row], { token: s.owner.token }));
    const [mine] = await sdkOf(h, parent).guardianInvitations.listMine();
    expect(mine).toMatchObject({ source: 'ROSTER', relationship: 'RELATIVE', status: 'PENDING' });
    const link = await sdkOf(h, parent).guardianInvitations.accept(mine?.guardianInvitationId ?? '');
    expect(link).toMatchObject({ source: 'ROSTER', relationship: 'RELATIVE', status: 'ACTIVE' });
    const again = await answerOf(await postRows(h, s.tenantId, [row], { token: s.owner.token }));
    expect(again.body.data.summary).toMatchObject({ guardianInvitations: 0, invalid: 0 });
    const pending = await h.db
      .select()
      .from(guardianInvitations)
      .where(and(eq(guardianInvitations.tenantId, s.tenantId), eq(guardianInvitations.status, 'PENDING')));
    expect(pending).toEqual([]);
  });

  it('refuses, as row errors, a bad address or relationship, a guardian of a non-STUDENT or of themself', async () => {
    const s = await schoolWith(h, 0);
    const tag = unique('bad');
    const csv = csvOf(
      'email,role,guardianEmail,guardianRelationship',
      `${tag}-1@example.test,student,not-an-address,parent`,
      `${tag}-2@example.test,student,${tag}-p2@example.test,aunt`,
      `${tag}-3@example.test,teacher,${tag}-p3@example.test,parent`,
      `${tag}-4@example.test,student,${tag}-4@EXAMPLE.test,parent`,
      `${tag}-5@example.test,student,,parent`,
    );
    const res = await answerOf(
      await postCsv(h, s.tenantId, csv, { token: s.owner.token, query: 'dryRun=true' }),
    );
    expect(res.body.data.failure.code).toBe('ROSTER_INVALID');
    expect(
      res.body.data.errors.map((e: { row: number; column: string; code: string }) => [
        e.row,
        e.column,
        e.code,
      ]),
    ).toEqual([
      [2, 'guardianEmail', 'INVALID_GUARDIAN_EMAIL'],
      [3, 'guardianRelationship', 'INVALID_RELATIONSHIP'],
      [4, 'guardianEmail', 'GUARDIAN_NOT_STUDENT'],
      [5, 'guardianEmail', 'GUARDIAN_OF_SELF'],
      [6, 'guardianEmail', 'REQUIRED'],
    ]);
    expect(res.body.data.summary).toMatchObject({ invalid: 5, guardianInvitations: 0 });
  });
});
