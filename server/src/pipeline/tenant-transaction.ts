import type { Request } from 'express';
import { lockTenantForWrite } from '../access/access.repository.js';
import type { CallerRow } from '../access/caller-read.repository.js';
import { accessRuleOf, decideAccess, type TenantAccess } from '../access/decide-access.js';
import type { Database, Transaction } from '../db/database.js';
import { Pipelined } from '../db/pipelined.js';
import { ServiceUnavailableError } from '../errors/index.js';
import { type AtSignIn, identify, identityIsCurrent, toCaller } from '../identity/identify.js';
import type { TenantWrite } from '../modules/shared/tenant-write.js';
import { auditContextOf } from './requester.js';

/** What a tenant write works with: its transaction, which holds the tenant's lock, and the decision taken under it. */
export type TenantWriteContext = TenantWrite;

/** Thrown inside a transaction to end it with ROLLBACK, and caught right there. */
class Rollback<T> {
  constructor(readonly value: T) {}
}

const tooLate = () =>
  new ServiceUnavailableError('The request took too long; the database may be unreachable');

/**
 * A change under a tenant, in one transaction: it locks the tenant's row, reads the caller and its
 * role there (after the lock, so it sees what the writers before committed), decides access on
 * them, runs `work`, and commits. The lock serialises the tenant's membership writes, so every
 * rule `work` checks reads a picture nobody changes before the commit.
 *
 * The transaction begins only once the request is whole (its body read and validated) and ends
 * with `work`: nothing waits on the client while the tenant is locked. A request whose answer went
 * out meanwhile (its deadline's 503, a client gone) begins nothing, and rolls back what it did.
 *
 * A caller seen for the first time, or whose token's claims are new, is identified outside the
 * lock (claiming an invitation, or joining by a verified domain, `atSignIn`, locks tenants of its
 * own, in id order), and the transaction begins again.
 */
export async function inTenantTransaction<T, A = undefined>(
  db: Database,
  req: Request,
  tenantId: string,
  { work, readAhead, atSignIn }: InTenant<T, A>,
): Promise<T> {
  const { claims, end } = req.state;
  if (!claims) throw new Error('a tenant write without verified claims');
  for (;;) {
    if (end.ended) throw tooLate();
    let pipelined: Pipelined | undefined;
    const outcome = await db
      .transaction(async (tx) => {
        // The read ahead is sent behind the lock and the caller's read, in the same round trip.
        const [found, ahead] = await Promise.all([
          lockTenantForWrite(tx, tenantId, claims.sub),
          readAhead?.(tx) as Promise<A>,
        ]);
        if (!identityIsCurrent(claims, found.user)) throw new Rollback<NotYet>({ unknown: found.user });
        if (end.ended) throw tooLate();
        const caller = toCaller(found.user, claims.sub);
        req.state.caller = caller;
        const access = decideAccess(accessRuleOf(req.tsRestRoute), {
          isSuperAdmin: found.user.isSuperAdmin,
          tenant: { tenantId, ...found.tenant },
        }) as TenantAccess;
        pipelined = new Pipelined(tx);
        const pipeline = pipelined.send.bind(pipelined);
        const audit = auditContextOf(caller, req.requestId);
        const value = await work({ tx, access, caller, audit, pipeline }, ahead);
        await pipelined.beforeCommit();
        // The answer is no longer this request's own: nobody would learn of the change.
        if (end.ended) throw tooLate();
        return { done: value };
      })
      .catch((error: unknown) => {
        if (error instanceof Rollback) return error.value as NotYet;
        throw error;
      });
    if ('done' in outcome) {
      // What was pipelined was answered before the COMMIT; a failure there ended it in ROLLBACK.
      await pipelined?.settle();
      return outcome.done;
    }
    await identify(db, claims, outcome.unknown, atSignIn && { atSignIn, requestId: req.requestId });
  }
}

type NotYet = { unknown: CallerRow | undefined };

type InTenant<T, A> = {
  /** The change, on its context and what `readAhead` read (undefined without one). */
  work: (context: TenantWriteContext, ahead: A) => Promise<T>;
  /**
   * A read the change is decided on, sent right behind the lock (pipeline/handlers.ts:
   * tenantWriteOn). Its answer is read after the lock was granted, like the caller's; a caller
   * refused access never sees it.
   */
  readAhead?: ((tx: Transaction) => Promise<A>) | undefined;
  /** What a new verified address sets off (identity/identify.ts). */
  atSignIn?: AtSignIn | undefined;
};
