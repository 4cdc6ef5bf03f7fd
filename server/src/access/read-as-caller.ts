import type { RouteAccess } from '@tms/contract';
import type { TokenClaims } from '../auth/token-claims.js';
import type { Database } from '../db/database.js';
import type { Caller } from '../identity/caller.js';
import { type AtSignIn, identify, identityIsCurrent, toCaller } from '../identity/identify.js';
import { factOf } from './access.repository.js';
import { type CallerRead, type CallerRow, findCaller } from './caller-read.repository.js';
import { decideAccess, type TenantAccess } from './decide-access.js';

/** Who asks, as a read needs to know: the token's claims, the route's rule, the URL's tenant. */
export type Requester = {
  claims: TokenClaims;
  rule: RouteAccess;
  tenantId?: string;
  /** Told who the caller turned out to be (for the request log). */
  identified(caller: Caller): void;
  /** What a new verified address sets off (identity/identify.ts: AtSignIn), and for which request. */
  atSignIn?: AtSignIn;
  requestId?: string;
};

/**
 * A read in one statement: the caller and the data together (`read`, given the token's subject),
 * then the decision on what came with the caller. The data part is gated in SQL by the same rule,
 * so a refused caller's statement read none. A caller seen for the first time, or whose token's
 * claims are new, is identified (created, or brought up to date) and the statement run again: only
 * that first request pays for more than one.
 */
export async function readAsCaller<T>(
  db: Database,
  requester: Requester,
  read: (subject: string) => Promise<CallerRead<T>>,
): Promise<{ caller: Caller; access: TenantAccess | undefined; items: T[] }> {
  const { claims } = requester;
  let result = await read(claims.sub);
  if (!identityIsCurrent(claims, result.caller)) {
    const { atSignIn, requestId = null } = requester;
    await identify(db, claims, result.caller, atSignIn && { atSignIn, requestId });
    result = await read(claims.sub);
  }
  const row = result.caller;
  if (!row) throw new Error(`no user for subject ${claims.sub} after identifying it`);
  const caller = toCaller(row, claims.sub);
  requester.identified(caller);
  const access = decideAccess(requester.rule, factsOf(row, requester.tenantId));
  return { caller, access, items: result.items };
}

const factsOf = (row: CallerRow, tenantId: string | undefined) => ({
  isSuperAdmin: row.isSuperAdmin,
  ...(tenantId === undefined ? {} : { tenant: { tenantId, ...factOf(row) } }),
});

/**
 * The caller alone, without data, and the decision on it: for a request decided before its body
 * is read or its input answered (pipeline/steps/decide-early.ts).
 */
export async function decideAsCaller(
  db: Database,
  requester: Requester,
): Promise<{ caller: Caller; access: TenantAccess | undefined }> {
  const { caller, access } = await readAsCaller(db, requester, async (subject) => ({
    caller: await findCaller(db, subject, requester.tenantId),
    items: [],
  }));
  return { caller, access };
}

/**
 * What a read cannot be built without (a cursor, say), parsed where the statement is built but
 * answered as validation is: after the access decision, so a refused caller learns nothing from it.
 */
export async function parsedAfterAccess<T>(db: Database, requester: Requester, parse: () => T): Promise<T> {
  try {
    return parse();
  } catch (problem) {
    await decideAsCaller(db, requester);
    throw problem;
  }
}
