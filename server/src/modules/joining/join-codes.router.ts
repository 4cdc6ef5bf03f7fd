import { contract } from '@tms/contract';
import type { CodeKeys } from '../../auth/code-keys.js';
import { read, routes, tenantWrite, write } from '../../pipeline/handlers.js';
import type { CodeTries } from '../../rate-limit/code-tries.js';
import { toMembershipDto } from '../memberships/memberships.dto.js';
import {
  createJoinCode,
  listJoinCodesPage,
  revokeJoinCodeById,
  rotateJoinCode,
} from './join-codes.service.js';
import { toJoinCodeDto, toJoinRequestDto } from './joining.dto.js';
import { joinWithCode, previewJoinCode } from './joining.service.js';

const addressOf = (req: { ip?: string | undefined; socket: { remoteAddress?: string | undefined } }) =>
  req.ip ?? req.socket.remoteAddress ?? 'unknown';

/**
 * The tenant's codes (changes in the transaction that locks the tenant), and redeeming one: every
 * POST /join and GET /join/:code spends a try of the caller's and of its address's tight budget
 * before anything is looked up.
 */
export const joinCodesRoutes = (deps: { codeKeys: CodeKeys; codeTries: CodeTries }) => {
  const { codeKeys, codeTries } = deps;
  const open = (sealed: string) => codeKeys.open('join', sealed);
  return routes(contract.joinCodes, {
    create: tenantWrite(async (change, { body }) => ({
      status: 201,
      data: toJoinCodeDto(await createJoinCode(change, codeKeys, body), open),
    })),
    list: read(async ({ db, requester }, { query }) => {
      const page = await listJoinCodesPage(db, requester, query);
      return {
        status: 200,
        data: page.items.map((code) => toJoinCodeDto(code, open)),
        meta: { nextCursor: page.nextCursor },
      };
    }),
    rotate: tenantWrite(async (change, { params }) => ({
      status: 200,
      data: toJoinCodeDto(await rotateJoinCode(change, codeKeys, params.joinCodeId), open),
    })),
    revoke: tenantWrite(async (change, { params }) => {
      await revokeJoinCodeById(change, params.joinCodeId);
      return { status: 204 };
    }),
    join: write(async ({ db, audit, caller }, { body, req }) => {
      codeTries.spend(caller.subject, addressOf(req));
      const outcome = await joinWithCode(db, audit, codeKeys, body.code);
      if (outcome.kind === 'requested') return { status: 202, data: toJoinRequestDto(outcome.request) };
      return { status: outcome.kind === 'joined' ? 201 : 200, data: toMembershipDto(outcome.membership) };
    }),
    preview: read(async ({ db, requester }, { params, req }) => {
      codeTries.spend(requester.claims.sub, addressOf(req));
      return { status: 200, data: await previewJoinCode(db, requester, codeKeys, params.code) };
    }),
  });
};
