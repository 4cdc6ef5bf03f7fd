import type {
  Contract,
  GuardianLink,
  MyGuardian,
  PairingCode,
  RedeemPairingCodeBody,
  SchoolGuardianLink,
  TenantAccessSummary,
  Ward,
} from '@tms/contract';
import {
  allPages,
  type ListQuery,
  type Page,
  type QueryOf,
  type Send,
  unwrap,
  unwrapPage,
} from './answers.js';
import type { CallOptions, CreateOptions } from './options.js';
import { routes } from './routes.js';

/**
 * Guardians: people linked to a tenant's students, who are not members. The school makes pairing
 * codes and manages links; a guardian redeems a code (`redeem`) and lists their wards; a student
 * lists their own guardians. Every POST takes an idempotency key (made by the SDK when retries are
 * on), so a retry is safe.
 */
export function guardiansOf(send: Send) {
  const r = routes.guardians;
  const guardians = {
    /** For the student themself or a TEACHER and above; the code is shown this once. */
    createPairingCode: async (
      tenantId: string,
      userId: string,
      options: CreateOptions = {},
    ): Promise<PairingCode> =>
      unwrap(await send({ route: r.createPairingCode, params: { tenantId, userId }, body: {}, options })),
    listStudentGuardians: async (
      tenantId: string,
      userId: string,
      options: CallOptions = {},
    ): Promise<SchoolGuardianLink[]> =>
      unwrap(await send({ route: r.listStudentGuardians, params: { tenantId, userId }, options })),
    listLinks: async (
      tenantId: string,
      query: QueryOf<Contract['guardians']['listLinks']> = {},
      options: CallOptions = {},
    ): Promise<Page<SchoolGuardianLink>> =>
      unwrapPage(await send({ route: r.listLinks, params: { tenantId }, query, options })),
    listAllLinks: (
      tenantId: string,
      query: ListQuery<Contract['guardians']['listLinks']> = {},
      options: CallOptions = {},
    ): AsyncGenerator<SchoolGuardianLink> =>
      allPages((cursor) => guardians.listLinks(tenantId, { ...query, cursor }, options)),
    /** ADMINs and above, or the guardian themself; answers the link, REVOKED. */
    removeLink: async (
      tenantId: string,
      guardianLinkId: string,
      options: CallOptions = {},
    ): Promise<GuardianLink> =>
      unwrap(await send({ route: r.removeLink, params: { tenantId, guardianLinkId }, options })),
    accessOf: async (
      tenantId: string,
      userId: string,
      options: CallOptions = {},
    ): Promise<TenantAccessSummary> =>
      unwrap(await send({ route: r.accessOf, params: { tenantId, userId }, options })),
    /** PAIRING_CODE_NOT_FOUND for a wrong, used or expired code alike. */
    redeem: async (body: RedeemPairingCodeBody, options: CreateOptions = {}): Promise<GuardianLink> =>
      unwrap(await send({ route: r.redeem, params: {}, body, options })),
    listWards: async (options: CallOptions = {}): Promise<Ward[]> =>
      unwrap(await send({ route: r.listWards, params: {}, options })),
    listMyGuardians: async (options: CallOptions = {}): Promise<MyGuardian[]> =>
      unwrap(await send({ route: r.listMyGuardians, params: {}, options })),
  };
  return guardians;
}
