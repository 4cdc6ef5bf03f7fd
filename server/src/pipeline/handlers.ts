import type { AppRoute, AppRouter, ServerInferResponses } from '@ts-rest/core';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { RequestHandler } from 'express';
import type { TenantAccess } from '../access/decide-access.js';
import type { Requester } from '../access/read-as-caller.js';
import type { Database, Transaction } from '../db/database.js';
import type { Caller } from '../identity/caller.js';
import type { AuditContext } from '../modules/audit/audit-context.js';
import type { DirectoryRequest } from '../modules/shared/directory-write.js';
import type { RouteKind } from './route-kinds.js';
import type { TenantWriteContext } from './tenant-transaction.js';

export type { TenantWriteContext };

/*
 * What a route module writes: one handler per route, made by the function named after the
 * route's kind (route-kinds.ts). Each gets the context its kind's pipeline has established, typed:
 *
 *   read         { db, requester }              access is decided by readAsCaller, on the caller
 *                                                read in the statement that reads the data
 *   write        { db, caller, audit, access? } decided before the body was read; the service
 *                                                owns its transaction
 *   tenantWrite  { tx, access, caller, audit }  decided in the transaction, under the tenant's
 *                                                lock; it commits when the handler returns
 *   upload       { db, access, caller, audit }  decided before the file was read; the service
 *                                                locks and decides again
 *
 * build-router.ts checks, when the app is built, that each route's handler is of its route's kind.
 */

type SuccessStatus = 200 | 201 | 202 | 204;

/** What a handler returns: the resource, not the envelope. */
type Unwrapped<R> = R extends { status: infer S; body: infer B }
  ? B extends { success: true; data: infer D; meta: infer M }
    ? { status: S; data: D; meta: M; headers?: Record<string, string> }
    : B extends { success: true; data: infer D }
      ? { status: S; data: D; headers?: Record<string, string> }
      : { status: S; headers?: Record<string, string> }
  : never;

export type RouteInput<T extends AppRoute> = Parameters<AppRouteImplementation<T>>[0];
export type RouteResult<T extends AppRoute> = Unwrapped<ServerInferResponses<T, SuccessStatus>>;
/** A bare answer, as ts-rest takes it: not enveloped (a probe's body, a streamed file). */
export type RawResult<T extends AppRoute> = ReturnType<AppRouteImplementation<T>>;

export type ReadContext = { db: Database; requester: Requester };
export type WriteContext = { db: Database; caller: Caller; audit: AuditContext; access?: TenantAccess };
export type UploadContext = { db: Database; caller: Caller; audit: AuditContext; access: TenantAccess };

/** A SCIM route's context (modules/shared/directory-write.ts). */
export type ScimContext = DirectoryRequest;
/**
 * A SCIM answer, as SCIM shapes it: never enveloped. A 409 here is a refusal the audit trail
 * records, so its transaction commits (a thrown error would roll the record back).
 */
export type ScimAnswer = { status: 200 | 201 | 204 | 409; body?: unknown; headers?: Record<string, string> };

/**
 * A read that a tenant write's decision needs, given the transaction (nothing sent yet but the
 * lock and the caller's read), the URL's tenant and the validated input. It must send its one
 * statement at once, as drizzle's prepared statements do: behind the lock on the wire.
 */
export type ReadAhead<T extends AppRoute, A> = (
  tx: Transaction,
  tenantId: string,
  input: RouteInput<T>,
) => Promise<A>;

type Handle<C, T extends AppRoute> = (context: C, input: RouteInput<T>) => Promise<RouteResult<T>>;

export type RouteHandler<T extends AppRoute> =
  | { kind: 'public'; raw: (input: RouteInput<T>) => RawResult<T> }
  | { kind: 'read'; handle: Handle<ReadContext, T> }
  | { kind: 'read'; raw: (context: ReadContext, input: RouteInput<T>) => RawResult<T> }
  | { kind: 'write'; handle: Handle<WriteContext, T> }
  | {
      kind: 'tenantWrite';
      /** `ahead`: what `readAhead` read (undefined without one). */
      handle: (context: TenantWriteContext, input: RouteInput<T>, ahead: unknown) => Promise<RouteResult<T>>;
      readAhead?: ReadAhead<T, unknown>;
      /**
       * Work that must not hold the tenant's lock (a name resolved over the network), run once the
       * input is valid and before the transaction begins, on the access decided before the body.
       */
      prepare?: (early: { access?: TenantAccess }, input: RouteInput<T>) => Promise<void>;
    }
  | { kind: 'scim'; handle: (context: ScimContext, input: RouteInput<T>) => Promise<ScimAnswer> }
  | {
      kind: 'upload';
      /** The route's own body reader, last in its pipeline. */
      readBody: RequestHandler;
      /** What its Idempotency-Key compares, as the body: its reader knows. */
      fingerprint: (input: RouteInput<T>) => unknown;
      handle: Handle<UploadContext, T>;
    };

export const publicRoute = <T extends AppRoute>(
  raw: (input: RouteInput<T>) => RawResult<T>,
): RouteHandler<T> => ({
  kind: 'public',
  raw,
});
export const read = <T extends AppRoute>(handle: Handle<ReadContext, T>): RouteHandler<T> => ({
  kind: 'read',
  handle,
});
/** A read answered with a bare body (a download): errors before its first byte are enveloped as usual. */
export const download = <T extends AppRoute>(
  raw: (context: ReadContext, input: RouteInput<T>) => RawResult<T>,
): RouteHandler<T> => ({ kind: 'read', raw });
export const write = <T extends AppRoute>(handle: Handle<WriteContext, T>): RouteHandler<T> => ({
  kind: 'write',
  handle,
});
export const tenantWrite = <T extends AppRoute>(
  handle: Handle<TenantWriteContext, T>,
  prepare?: Extract<RouteHandler<T>, { kind: 'tenantWrite' }>['prepare'],
): RouteHandler<T> => ({ kind: 'tenantWrite', handle, ...(prepare && { prepare }) });
/**
 * A tenant write decided on a read of its own (the membership its URL names, as it is), sent
 * right behind the tenant's lock and the caller's read: the connection runs it once the lock is
 * granted, so it sees what the writers before committed, and the three answers come back in one
 * round trip (pipeline/tenant-transaction.ts). Its answer is the handler's third argument.
 */
export const tenantWriteOn = <T extends AppRoute, A>(
  readAhead: ReadAhead<T, A>,
  handle: (context: TenantWriteContext, input: RouteInput<T>, ahead: A) => Promise<RouteResult<T>>,
): RouteHandler<T> => ({
  kind: 'tenantWrite',
  readAhead,
  // `ahead` is what `readAhead` gave, which build-router.ts passes on untouched.
  handle: handle as (
    context: TenantWriteContext,
    input: RouteInput<T>,
    ahead: unknown,
  ) => Promise<RouteResult<T>>,
});
export const scim = <T extends AppRoute>(
  handle: (context: ScimContext, input: RouteInput<T>) => Promise<ScimAnswer>,
): RouteHandler<T> => ({ kind: 'scim', handle });
export const upload = <T extends AppRoute>(
  options: Omit<Extract<RouteHandler<T>, { kind: 'upload' }>, 'kind'>,
): RouteHandler<T> => ({ kind: 'upload', ...options });

export type RouteHandlers<R extends AppRouter> = {
  [K in keyof R]: R[K] extends AppRoute ? RouteHandler<R[K]> : never;
};

/** A resource's routes, as its module declares them: the contract's router and a handler per route. */
export type Routes<R extends AppRouter = AppRouter> = { router: R; handlers: RouteHandlers<R> };

export const routes = <R extends AppRouter>(router: R, handlers: RouteHandlers<R>): Routes<R> => ({
  router,
  handlers,
});

export type { RouteKind };
