import { contract, ROLE_LEVEL } from '@tms/contract';
import type { CodeKeys } from '../../auth/code-keys.js';
import { read, routes, tenantWrite, write } from '../../pipeline/handlers.js';
import type { CodeTries } from '../../rate-limit/code-tries.js';
import { describeAccess, listLinksPage, listStudentGuardians, removeLink } from './guardian-links.service.js';
import {
  toGuardianLinkDto,
  toMyGuardianDto,
  toPairingCodeDto,
  toSchoolLinkDto,
  toWardDto,
} from './guardians.dto.js';
import { listMyGuardians, listWards } from './my-guardians.service.js';
import { createPairingCode } from './pairing-codes.service.js';
import { redeemPairingCode } from './redeem-pairing-code.service.js';

/**
 * The school's routes (reads decide on the caller read with their data; changes run in the
 * transaction that locks the tenant) and the guardian's and student's own under /me. Redeeming a
 * code owns its transaction: the URL does not name the tenant the code belongs to.
 */
export const guardiansRoutes = (deps: { codeKeys: CodeKeys; codeTries: CodeTries }) =>
  routes(contract.guardians, {
    createPairingCode: tenantWrite(async (change, { params }) => {
      const { row, code } = await createPairingCode(change, deps.codeKeys, params.userId);
      return { status: 201, data: toPairingCodeDto(row, code) };
    }),
    listStudentGuardians: read(async ({ db, requester }, { params }) => {
      const { access, links } = await listStudentGuardians(db, requester, params.userId);
      return { status: 200, data: links.map((link) => toSchoolLinkDto(link, access)) };
    }),
    listLinks: read(async ({ db, requester }, { query }) => {
      const { access, page } = await listLinksPage(db, requester, query);
      return {
        status: 200,
        data: page.items.map((link) => toSchoolLinkDto(link, access)),
        meta: { nextCursor: page.nextCursor },
      };
    }),
    removeLink: tenantWrite(async (change, { params }) => ({
      status: 200,
      data: toGuardianLinkDto(await removeLink(change, params.guardianLinkId)),
    })),
    accessOf: read(async ({ db, requester }, { params }) => {
      const view = await describeAccess(db, requester, params.userId);
      return {
        status: 200,
        data: {
          tenantId: params.tenantId,
          userId: params.userId,
          role: view.role,
          roleLevel: view.role === null ? null : ROLE_LEVEL[view.role],
          status: view.status,
          guardianOf: view.guardianOf,
        },
      };
    }),
    redeem: write(async ({ db, audit }, { body, req }) => ({
      status: 201,
      data: toGuardianLinkDto(await redeemPairingCode(db, deps, { audit, address: req.ip ?? '' }, body)),
    })),
    listWards: read(async ({ db, requester }) => ({
      status: 200,
      data: (await listWards(db, requester)).map(toWardDto),
    })),
    listMyGuardians: read(async ({ db, requester }) => ({
      status: 200,
      data: (await listMyGuardians(db, requester)).map(toMyGuardianDto),
    })),
  });
