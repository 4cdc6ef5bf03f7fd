import { randomUUID } from 'node:crypto';
import { OwnershipTransferSchema } from '@tms/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Actor, addMember, createActor, createSuperAdmin } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { jsonOf } from '../support/json.js';
import { missingId } from '../support/memberships.js';
import { sdkOf } from '../support/sdk.js';
import {
  behindTheApi,
  DAY_MS,
  expectApiError,
  expire,
  roleOf,
  type TransferWorld,
  tenantSnapshot,
  transferRow,
  transferWorld,
} from './helpers.js';

let h: TestServer;
let superAdmin: Actor;
beforeAll(async () => {
  h = await startTestServer();
  superAdmin = await createSuperAdmin(h);
});
afterAll(() => h?.close());

/** The OWNER offers the tenant to the TEACHER. */
async function offer(w: TransferWorld, body: { expiresInDays?: number } = {}) {
  return sdkOf(h, w.owner.actor).ownershipTransfers.create(w.tenantId, {
    toMembershipId: w.teacher.membershipId,
    ...body,
  });
}

async function post(
  actor: Actor | undefined,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
) {
  return fetch(`${h.baseUrl}${path}`, {
    method: 'POST',
    body,
    headers: {
      ...(actor ? { authorization: `Bearer ${actor.token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
  });
}

describe('create', () => {
  it('by an OWNER: 201, PENDING from its membership to the nominee, 3 days by default', async () => {
    const w = await transferWorld(h);
    const transfer = OwnershipTransferSchema.strict().parse(await offer(w));
    expect(transfer).toMatchObject({
      tenantId: w.tenantId,
      fromMembershipId: w.owner.membershipId,
      toMembershipId: w.teacher.membershipId,
      status: 'PENDING',
    });
    expect(Date.parse(transfer.expiresAt) - Date.parse(transfer.createdAt)).toBe(3 * DAY_MS);
    expect(await transferRow(h.db, transfer.transferId)).toMatchObject({ status: 'PENDING' });
    // Nothing changes hands until the nominee accepts.
    expect(await roleOf(h.db, w.teacher.membershipId)).toEqual({ role: 'TEACHER', version: 1 });
  });

  it.each([1, 14])('expiresInDays %i sets expiresAt that many days ahead', async (days) => {
    const w = await transferWorld(h);
    const transfer = await offer(w, { expiresInDays: days });
    expect(Date.parse(transfer.expiresAt) - Date.parse(transfer.createdAt)).toBe(days * DAY_MS);
  });

  it('by an ADMIN: 403 INSUFFICIENT_ROLE; by TEACHER, STUDENT: the same; by an outsider: 403 TENANT_ACCESS_DENIED', async () => {
    const w = await transferWorld(h);
    const before = await tenantSnapshot(h.db, w.tenantId);
    const body = { toMembershipId: w.student.membershipId };
    for (const member of [w.admin, w.teacher, w.student]) {
      await expectApiError(
        sdkOf(h, member.actor).ownershipTransfers.create(w.tenantId, body),
        403,
        'INSUFFICIENT_ROLE',
      );
    }
    const outsider = await createActor(h);
    await expectApiError(
      sdkOf(h, outsider).ownershipTransfers.create(w.tenantId, body),
      403,
      'TENANT_ACCESS_DENIED',
    );
    await expectApiError(
      sdkOf(h, superAdmin).ownershipTransfers.create(missingId(), body),
      404,
      'TENANT_NOT_FOUND',
    );
    expect(await tenantSnapshot(h.db, w.tenantId)).toBe(before);
  });

  it("by a super administrator who is no OWNER there: on behalf of the tenant's oldest ACTIVE OWNER", async () => {
    const w = await transferWorld(h);
    // A newer OWNER, and the oldest one suspended: the oldest ACTIVE one is the newer.
    const second = await addMember(h, w.tenantId, 'OWNER');
    const third = await addMember(h, w.tenantId, 'OWNER');
    await behindTheApi.suspend(h.db, w.owner.membershipId);
    const transfer = await sdkOf(h, superAdmin).ownershipTransfers.create(w.tenantId, {
      toMembershipId: w.teacher.membershipId,
    });
    expect(transfer.fromMembershipId).toBe(second.membershipId);
    expect(transfer.fromMembershipId).not.toBe(third.membershipId);
  });

  it('by a super administrator who is an OWNER there: from its own membership', async () => {
    const w = await transferWorld(h);
    const admin = await createSuperAdmin(h);
    const own = await addMember(h, w.tenantId, 'OWNER', admin);
    const transfer = await sdkOf(h, admin).ownershipTransfers.create(w.tenantId, {
      toMembershipId: w.teacher.membershipId,
    });
    expect(transfer.fromMembershipId).toBe(own.membershipId);
  });

  it('by a super administrator where no OWNER is ACTIVE: 409 TRANSFER_NOT_APPLICABLE', async () => {
    const w = await transferWorld(h);
    await behindTheApi.suspend(h.db, w.owner.membershipId);
    await expectApiError(
      sdkOf(h, superAdmin).ownershipTransfers.create(w.tenantId, { toMembershipId: w.teacher.membershipId }),
      409,
      'TRANSFER_NOT_APPLICABLE',
    );
  });

  it.each([
    ['an OWNER', async (w: TransferWorld) => (await addMember(h, w.tenantId, 'OWNER')).membershipId],
    ['a suspended member', async (w: TransferWorld) => suspended(w)],
    ['a member whose term ended', async (w: TransferWorld) => withTerm(w, 'endTerm')],
    ['a member whose term has not begun', async (w: TransferWorld) => withTerm(w, 'startLater')],
  ])('to %s: 409 TRANSFER_NOT_APPLICABLE, nothing written', async (_label, nominee) => {
    const w = await transferWorld(h);
    const toMembershipId = await nominee(w);
    const before = await tenantSnapshot(h.db, w.tenantId);
    await expectApiError(
      sdkOf(h, w.owner.actor).ownershipTransfers.create(w.tenantId, { toMembershipId }),
      409,
      'TRANSFER_NOT_APPLICABLE',
    );
    expect(await tenantSnapshot(h.db, w.tenantId)).toBe(before);
  });

  it("to another tenant's membership, or none: 404 MEMBERSHIP_NOT_FOUND", async () => {
    const w = await transferWorld(h);
    const other = await transferWorld(h);
    for (const toMembershipId of [other.teacher.membershipId, missingId()]) {
      await expectApiError(
        sdkOf(h, w.owner.actor).ownershipTransfers.create(w.tenantId, { toMembershipId }),
        404,
        'MEMBERSHIP_NOT_FOUND',
      );
    }
  });

  it('while one is pending: 409 TRANSFER_ALREADY_PENDING, whoever the nominee; once it is cancelled, 201', async () => {
    const w = await transferWorld(h);
    const first = await offer(w);
    const owner = sdkOf(h, w.owner.actor).ownershipTransfers;
    for (const toMembershipId of [w.teacher.membershipId, w.student.membershipId]) {
      await expectApiError(owner.create(w.tenantId, { toMembershipId }), 409, 'TRANSFER_ALREADY_PENDING');
    }
    await owner.cancel(w.tenantId, first.transferId);
    expect((await owner.create(w.tenantId, { toMembershipId: w.student.membershipId })).status).toBe(
      'PENDING',
    );
  });

  it('while one is stored PENDING but past its time: it is written EXPIRED, and the new one created', async () => {
    const w = await transferWorld(h);
    const first = await offer(w);
    await expire(h.db, first.transferId);
    const second = await offer(w);
    expect(second.transferId).not.toBe(first.transferId);
    expect(await transferRow(h.db, first.transferId)).toMatchObject({ status: 'EXPIRED' });
    expect(await transferRow(h.db, second.transferId)).toMatchObject({ status: 'PENDING' });
  });

  it.each([
    ['no body', undefined, 400, 'VALIDATION_FAILED'],
    ['an empty object', '{}', 400, 'VALIDATION_FAILED'],
    ['a toMembershipId that is not a UUID', '{"toMembershipId":"x"}', 400, 'VALIDATION_FAILED'],
    ['expiresInDays 0', '{"toMembershipId":"$id","expiresInDays":0}', 400, 'VALIDATION_FAILED'],
    ['expiresInDays 15', '{"toMembershipId":"$id","expiresInDays":15}', 400, 'VALIDATION_FAILED'],
    ['expiresInDays 2.5', '{"toMembershipId":"$id","expiresInDays":2.5}', 400, 'VALIDATION_FAILED'],
    ['expiresInDays "3"', '{"toMembershipId":"$id","expiresInDays":"3"}', 400, 'VALIDATION_FAILED'],
    ['expiresInDays null', '{"toMembershipId":"$id","expiresInDays":null}', 400, 'VALIDATION_FAILED'],
    ['an unknown field', '{"toMembershipId":"$id","fromMembershipId":"$id"}', 400, 'VALIDATION_FAILED'],
    ['an array', '[]', 400, 'VALIDATION_FAILED'],
    ['broken JSON', '{"toMembershipId":', 400, 'INVALID_JSON'],
  ])('with %s: %i %s, nothing written', async (_label, raw, status, code) => {
    const w = await transferWorld(h);
    const before = await tenantSnapshot(h.db, w.tenantId);
    const body = raw?.replaceAll('$id', w.teacher.membershipId);
    const res = await post(w.owner.actor, `/tenants/${w.tenantId}/ownership-transfers`, body);
    expect(res.status).toBe(status);
    expect((await jsonOf(res)).error.code).toBe(code);
    expect(await tenantSnapshot(h.db, w.tenantId)).toBe(before);
  });

  it('checks access before the body: a STUDENT with a broken body is 403, a bad tenant id 400, a contradicting x-tenant-id 400', async () => {
    const w = await transferWorld(h);
    const broken = await post(w.student.actor, `/tenants/${w.tenantId}/ownership-transfers`, '{"x":');
    expect([broken.status, (await jsonOf(broken)).error.code]).toEqual([403, 'INSUFFICIENT_ROLE']);
    const body = JSON.stringify({ toMembershipId: w.teacher.membershipId });
    const badId = await post(w.owner.actor, '/tenants/not-a-uuid/ownership-transfers', body);
    expect(badId.status).toBe(400);
    const mismatch = await post(w.owner.actor, `/tenants/${w.tenantId}/ownership-transfers`, body, {
      'x-tenant-id': missingId(),
    });
    expect((await jsonOf(mismatch)).error.code).toBe('TENANT_ID_MISMATCH');
    const anonymous = await post(undefined, `/tenants/${w.tenantId}/ownership-transfers`, body);
    expect(anonymous.status).toBe(401);
  });
});

async function suspended(w: TransferWorld) {
  await behindTheApi.suspend(h.db, w.teacher.membershipId);
  return w.teacher.membershipId;
}
async function withTerm(w: TransferWorld, change: 'endTerm' | 'startLater') {
  await behindTheApi[change](h.db, w.teacher.membershipId);
  return w.teacher.membershipId;
}

describe('get', () => {
  it('by an OWNER, an ADMIN or a super administrator: 200; by a TEACHER 403, an outsider 403', async () => {
    const w = await transferWorld(h);
    const transfer = await offer(w);
    for (const reader of [w.owner.actor, w.admin.actor, superAdmin]) {
      expect(await sdkOf(h, reader).ownershipTransfers.get(w.tenantId, transfer.transferId)).toEqual(
        transfer,
      );
    }
    await expectApiError(
      sdkOf(h, w.teacher.actor).ownershipTransfers.get(w.tenantId, transfer.transferId),
      403,
      'INSUFFICIENT_ROLE',
    );
    await expectApiError(
      sdkOf(h, await createActor(h)).ownershipTransfers.get(w.tenantId, transfer.transferId),
      403,
      'TENANT_ACCESS_DENIED',
    );
  });

  it("another tenant's transfer, or none: 404 TRANSFER_NOT_FOUND (the scope rule)", async () => {
    const w = await transferWorld(h);
    const other = await transferWorld(h);
    const theirs = await offer(other);
    for (const transferId of [theirs.transferId, missingId()]) {
      await expectApiError(
        sdkOf(h, w.owner.actor).ownershipTransfers.get(w.tenantId, transferId),
        404,
        'TRANSFER_NOT_FOUND',
      );
    }
    // Even for a super administrator, who may read both tenants: the URL's tenant decides.
    await expectApiError(
      sdkOf(h, superAdmin).ownershipTransfers.get(w.tenantId, theirs.transferId),
      404,
      'TRANSFER_NOT_FOUND',
    );
    const malformed = await fetch(`${h.baseUrl}/tenants/${w.tenantId}/ownership-transfers/nope`, {
      headers: { authorization: `Bearer ${w.owner.actor.token}` },
    });
    expect(malformed.status).toBe(400);
  });

  it('a pending transfer past its time reads EXPIRED, though nobody wrote so', async () => {
    const w = await transferWorld(h);
    const transfer = await offer(w);
    await expire(h.db, transfer.transferId);
    const read = await sdkOf(h, w.owner.actor).ownershipTransfers.get(w.tenantId, transfer.transferId);
    expect(read.status).toBe('EXPIRED');
    expect(await transferRow(h.db, transfer.transferId)).toMatchObject({ status: 'PENDING' });
  });
});

describe('cancel', () => {
  it('by the initiator, another OWNER or a super administrator: 200 CANCELLED', async () => {
    for (const by of ['initiator', 'other owner', 'super admin'] as const) {
      const w = await transferWorld(h);
      const other = await addMember(h, w.tenantId, 'OWNER');
      const actor = by === 'initiator' ? w.owner.actor : by === 'other owner' ? other.actor : superAdmin;
      const transfer = await offer(w);
      const cancelled = await sdkOf(h, actor).ownershipTransfers.cancel(w.tenantId, transfer.transferId);
      expect(cancelled).toMatchObject({ transferId: transfer.transferId, status: 'CANCELLED' });
      expect(Date.parse(cancelled.updatedAt)).toBeGreaterThanOrEqual(Date.parse(transfer.updatedAt));
      expect(await transferRow(h.db, transfer.transferId)).toMatchObject({ status: 'CANCELLED' });
    }
  });

  it('by an ADMIN: 403 INSUFFICIENT_ROLE, still pending', async () => {
    const w = await transferWorld(h);
    const transfer = await offer(w);
    await expectApiError(
      sdkOf(h, w.admin.actor).ownershipTransfers.cancel(w.tenantId, transfer.transferId),
      403,
      'INSUFFICIENT_ROLE',
    );
    expect(await transferRow(h.db, transfer.transferId)).toMatchObject({ status: 'PENDING' });
  });

  it('a cancelled, declined, accepted or expired transfer: 409 TRANSFER_NOT_PENDING', async () => {
    const w = await transferWorld(h);
    const owner = sdkOf(h, w.owner.actor).ownershipTransfers;
    const nominee = sdkOf(h, w.teacher.actor).ownershipTransfers;
    const cancelled = await offer(w);
    await owner.cancel(w.tenantId, cancelled.transferId);
    const declined = await offer(w);
    await nominee.decline(declined.transferId);
    const expired = await offer(w);
    await expire(h.db, expired.transferId);
    const accepted = await offer(w);
    await nominee.accept(accepted.transferId);
    // The nominee is the OWNER now; the former one, an ADMIN, may no longer cancel anything.
    const newOwner = sdkOf(h, w.teacher.actor).ownershipTransfers;
    for (const { transferId } of [cancelled, declined, expired, accepted]) {
      await expectApiError(newOwner.cancel(w.tenantId, transferId), 409, 'TRANSFER_NOT_PENDING');
    }
    expect(await transferRow(h.db, expired.transferId)).toMatchObject({ status: 'EXPIRED' });
  });

  it("another tenant's transfer, or none: 404 TRANSFER_NOT_FOUND; a body with fields: 400", async () => {
    const w = await transferWorld(h);
    const other = await transferWorld(h);
    const theirs = await offer(other);
    for (const transferId of [theirs.transferId, missingId()]) {
      await expectApiError(
        sdkOf(h, w.owner.actor).ownershipTransfers.cancel(w.tenantId, transferId),
        404,
        'TRANSFER_NOT_FOUND',
      );
    }
    expect(await transferRow(h.db, theirs.transferId)).toMatchObject({ status: 'PENDING' });
    const mine = await offer(w);
    const path = `/tenants/${w.tenantId}/ownership-transfers/${mine.transferId}/cancel`;
    const withField = await post(w.owner.actor, path, '{"reason":"x"}');
    expect([withField.status, (await jsonOf(withField)).error.code]).toEqual([400, 'VALIDATION_FAILED']);
    const empty = await post(w.owner.actor, path, '{}');
    expect(empty.status).toBe(200);
  });
});

describe('the nominee: list, accept, decline', () => {
  it('lists its open nominations; nobody else sees them; expired, answered and deleted tenants drop out', async () => {
    const w = await transferWorld(h);
    const other = await transferWorld(h);
    const mine = await offer(w);
    const alsoMine = await sdkOf(h, other.owner.actor).ownershipTransfers.create(other.tenantId, {
      toMembershipId: (await addMember(h, other.tenantId, 'STUDENT', w.teacher.actor)).membershipId,
    });
    const nominee = sdkOf(h, w.teacher.actor).ownershipTransfers;
    expect(await nominee.listMine()).toEqual([mine, alsoMine]);
    expect(await sdkOf(h, w.owner.actor).ownershipTransfers.listMine()).toEqual([]);
    expect(await sdkOf(h, superAdmin).ownershipTransfers.listMine()).toEqual([]);
    await behindTheApi.deleteTenant(h.db, other.tenantId);
    expect(await nominee.listMine()).toEqual([mine]);
    await expire(h.db, mine.transferId);
    expect(await nominee.listMine()).toEqual([]);
  });

  it('accepts: 200 ACCEPTED; in one go the nominee is OWNER and the initiator ADMIN, each one version on', async () => {
    const w = await transferWorld(h);
    const transfer = await offer(w);
    const accepted = await sdkOf(h, w.teacher.actor).ownershipTransfers.accept(transfer.transferId);
    expect(OwnershipTransferSchema.strict().parse(accepted)).toMatchObject({
      transferId: transfer.transferId,
      status: 'ACCEPTED',
    });
    expect(await roleOf(h.db, w.teacher.membershipId)).toEqual({ role: 'OWNER', version: 2 });
    expect(await roleOf(h.db, w.owner.membershipId)).toEqual({ role: 'ADMIN', version: 2 });
    // The new OWNER's rights hold at once, through the API; the old one's are an ADMIN's.
    const me = await sdkOf(h, w.teacher.actor).memberships.get(w.tenantId, w.teacher.membershipId);
    expect(me).toMatchObject({ role: 'OWNER', version: 2 });
    await expectApiError(
      sdkOf(h, w.owner.actor).ownershipTransfers.create(w.tenantId, {
        toMembershipId: w.student.membershipId,
      }),
      403,
      'INSUFFICIENT_ROLE',
    );
  });

  it('a nominee demoted meanwhile (still an ACTIVE member below OWNER) may still accept', async () => {
    const w = await transferWorld(h);
    const transfer = await offer(w);
    await sdkOf(h, w.owner.actor).memberships.update(w.tenantId, w.teacher.membershipId, { role: 'STUDENT' });
    await sdkOf(h, w.teacher.actor).ownershipTransfers.accept(transfer.transferId);
    expect(await roleOf(h.db, w.teacher.membershipId)).toEqual({ role: 'OWNER', version: 3 });
  });

  it('a nominee with an end date becomes an open-ended OWNER (OWNERs carry no term dates)', async () => {
    const w = await transferWorld(h);
    const endsAt = new Date(Date.now() + 30 * DAY_MS).toISOString();
    const owner = sdkOf(h, w.owner.actor);
    await owner.memberships.update(w.tenantId, w.teacher.membershipId, { endsAt });
    const transfer = await offer(w);
    await sdkOf(h, w.teacher.actor).ownershipTransfers.accept(transfer.transferId);
    const nominee = await sdkOf(h, w.teacher.actor).memberships.get(w.tenantId, w.teacher.membershipId);
    expect(nominee).toMatchObject({ role: 'OWNER', status: 'ACTIVE', startsAt: null, endsAt: null });
  });

  it('declines: 200 DECLINED, nobody changes role', async () => {
    const w = await transferWorld(h);
    const transfer = await offer(w);
    const declined = await sdkOf(h, w.teacher.actor).ownershipTransfers.decline(transfer.transferId);
    expect(declined.status).toBe('DECLINED');
    expect(await roleOf(h.db, w.teacher.membershipId)).toEqual({ role: 'TEACHER', version: 1 });
    expect(await roleOf(h.db, w.owner.membershipId)).toEqual({ role: 'OWNER', version: 1 });
  });

  it("somebody else's transfer, or none: 404 TRANSFER_NOT_FOUND to accept or decline, nothing changed", async () => {
    const w = await transferWorld(h);
    const transfer = await offer(w);
    const before = await tenantSnapshot(h.db, w.tenantId);
    for (const actor of [w.owner.actor, w.admin.actor, w.student.actor, superAdmin, await createActor(h)]) {
      const api = sdkOf(h, actor).ownershipTransfers;
      await expectApiError(api.accept(transfer.transferId), 404, 'TRANSFER_NOT_FOUND');
      await expectApiError(api.decline(transfer.transferId), 404, 'TRANSFER_NOT_FOUND');
    }
    await expectApiError(
      sdkOf(h, w.teacher.actor).ownershipTransfers.accept(missingId()),
      404,
      'TRANSFER_NOT_FOUND',
    );
    expect(await tenantSnapshot(h.db, w.tenantId)).toBe(before);
  });

  it('a finished or expired transfer: 409 TRANSFER_NOT_PENDING, nothing changed', async () => {
    const w = await transferWorld(h);
    const nominee = sdkOf(h, w.teacher.actor).ownershipTransfers;
    const declined = await offer(w);
    await nominee.decline(declined.transferId);
    const cancelled = await offer(w);
    await sdkOf(h, w.owner.actor).ownershipTransfers.cancel(w.tenantId, cancelled.transferId);
    const expired = await offer(w);
    await expire(h.db, expired.transferId);
    const before = await tenantSnapshot(h.db, w.tenantId);
    for (const { transferId } of [declined, cancelled, expired]) {
      await expectApiError(nominee.accept(transferId), 409, 'TRANSFER_NOT_PENDING');
      await expectApiError(nominee.decline(transferId), 409, 'TRANSFER_NOT_PENDING');
    }
    expect(await tenantSnapshot(h.db, w.tenantId)).toBe(before);
  });

  it.each([
    ['the nominee was suspended', (w: TransferWorld) => behindTheApi.suspend(h.db, w.teacher.membershipId)],
    ["the nominee's term ended", (w: TransferWorld) => behindTheApi.endTerm(h.db, w.teacher.membershipId)],
    ['the nominee was made OWNER', (w: TransferWorld) => promote(w)],
    ['the initiator was demoted', (w: TransferWorld) => demoteInitiator(w)],
    ['the initiator was suspended', (w: TransferWorld) => behindTheApi.suspend(h.db, w.owner.membershipId)],
    ['the initiator was removed', (w: TransferWorld) => removeInitiator(w)],
  ])(
    'accepting when %s: 409 TRANSFER_NOT_APPLICABLE, and the transfer stays CANCELLED',
    async (_l, change) => {
      const w = await transferWorld(h);
      // A second OWNER, so that the initiator may be demoted or removed.
      await addMember(h, w.tenantId, 'OWNER');
      const transfer = await offer(w);
      await change(w);
      const roles = await tenantSnapshot(h.db, w.tenantId);
      await expectApiError(
        sdkOf(h, w.teacher.actor).ownershipTransfers.accept(transfer.transferId),
        409,
        'TRANSFER_NOT_APPLICABLE',
      );
      // Committed, though the answer was an error: the refusal was thrown after the commit.
      expect(await transferRow(h.db, transfer.transferId)).toMatchObject({ status: 'CANCELLED' });
      const after = JSON.parse(await tenantSnapshot(h.db, w.tenantId));
      expect(after.memberships).toEqual(JSON.parse(roles).memberships);
      await expectApiError(
        sdkOf(h, w.teacher.actor).ownershipTransfers.accept(transfer.transferId),
        409,
        'TRANSFER_NOT_PENDING',
      );
    },
  );

  it("a deleted tenant's transfer is not found; a malformed id is 400, a body with fields 400", async () => {
    const w = await transferWorld(h);
    const transfer = await offer(w);
    await behindTheApi.deleteTenant(h.db, w.tenantId);
    await expectApiError(
      sdkOf(h, w.teacher.actor).ownershipTransfers.accept(transfer.transferId),
      404,
      'TRANSFER_NOT_FOUND',
    );
    expect(await transferRow(h.db, transfer.transferId)).toMatchObject({ status: 'PENDING' });
    const malformed = await post(w.teacher.actor, '/me/ownership-transfers/nope/accept');
    expect(malformed.status).toBe(400);
    const live = await transferWorld(h);
    const open = await offer(live);
    const withField = await post(
      live.teacher.actor,
      `/me/ownership-transfers/${open.transferId}/decline`,
      '{"a":1}',
    );
    expect([withField.status, (await jsonOf(withField)).error.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(await transferRow(h.db, open.transferId)).toMatchObject({ status: 'PENDING' });
  });

  it('an accept sent again with its Idempotency-Key is replayed, not answered twice', async () => {
    const w = await transferWorld(h);
    const transfer = await offer(w);
    const key = randomUUID();
    const path = `/me/ownership-transfers/${transfer.transferId}/accept`;
    const first = await post(w.teacher.actor, path, undefined, { 'idempotency-key': key });
    const again = await post(w.teacher.actor, path, undefined, { 'idempotency-key': key });
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await jsonOf(again)).toEqual(await jsonOf(first));
    expect(await roleOf(h.db, w.teacher.membershipId)).toEqual({ role: 'OWNER', version: 2 });
  });
});

async function promote(w: TransferWorld) {
  await sdkOf(h, w.owner.actor).memberships.update(w.tenantId, w.teacher.membershipId, { role: 'OWNER' });
}
async function demoteInitiator(w: TransferWorld) {
  await sdkOf(h, superAdmin).memberships.update(w.tenantId, w.owner.membershipId, { role: 'ADMIN' });
}
async function removeInitiator(w: TransferWorld) {
  await sdkOf(h, superAdmin).memberships.remove(w.tenantId, w.owner.membershipId);
}
