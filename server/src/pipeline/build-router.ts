import { SCIM_MEDIA_TYPE } from '@tms/contract';
import type { AppRoute, AppRouter } from '@ts-rest/core';
import { isAppRoute } from '@ts-rest/core';
import type { createExpressEndpoints } from '@ts-rest/express';
import type { Request, RequestHandler, Response } from 'express';
import { inSeries } from '../http/in-series.js';
import { scimBaseUrlOf } from '../http/scim-base-url.js';
import type { StoredAnswer } from '../idempotency/idempotent-request.js';
import { admissionKeyOf, admitted } from './admitted.js';
import { answered, releasingKeyOnError, replayOf } from './answers.js';
import { inDirectoryTransaction } from './directory-transaction.js';
import type { RouteHandler, Routes } from './handlers.js';
import type { PipelineDeps } from './pipelines.js';
import { pipelines } from './pipelines.js';
import { auditContextOf, requesterOf, tenantOf } from './requester.js';
import { kindOf } from './route-kinds.js';
import { decided } from './steps/decide-early.js';
import { inTenantTransaction } from './tenant-transaction.js';

type Implementation = { middleware: RequestHandler[]; handler: (input: AnyInput) => Promise<unknown> };
type AnyInput = {
  req: Request;
  res: Response;
  params: unknown;
  query: unknown;
  body: unknown;
  headers: unknown;
};
type AnyHandler = RouteHandler<AppRoute>;

/**
 * The ts-rest implementation of the whole contract: each route gets its kind's steps
 * (pipelines.ts) and a handler that runs its module's handler in its kind's context. Built once,
 * when the app is: a route whose handler is not of its route's kind stops the start.
 */
export function buildRouter<C extends AppRouter>(
  contract: C,
  modules: { [K in keyof C]: C[K] extends AppRouter ? Routes<C[K]> : never },
  deps: PipelineDeps,
): Parameters<typeof createExpressEndpoints<C>>[1] {
  const steps = pipelines(deps);
  const implementation: Record<string, Record<string, Implementation>> = {};
  for (const [name, module] of Object.entries(modules) as [string, Routes<AppRouter>][]) {
    if (module.router !== (contract as AppRouter)[name])
      throw new Error(`routes of ${name}: another contract router`);
    implementation[name] = {};
    for (const [key, route] of Object.entries(module.router)) {
      if (!isAppRoute(route)) throw new Error(`${name}.${key}: nested routers are not routes`);
      const handler = (module.handlers as Record<string, AnyHandler>)[key];
      if (!handler) throw new Error(`${name}.${key}: no handler`);
      const kind = kindOf(route);
      if (handler.kind !== kind) {
        throw new Error(
          `${name}.${key} (${route.method} ${route.path}) is a ${kind} route, given a ${handler.kind} handler`,
        );
      }
      const pipeline = handler.kind === 'upload' ? [...steps.upload, handler.readBody] : steps[kind];
      // One handler for the whole pipeline: express walks its router once per layer.
      const middleware = pipeline.length > 0 ? [inSeries(pipeline)] : [];
      (implementation[name] as Record<string, Implementation>)[key] = {
        middleware,
        handler: run(handler, deps),
      };
    }
  }
  return implementation as unknown as Parameters<typeof createExpressEndpoints<C>>[1];
}

/** The handler as ts-rest calls it: the module's handler in its context, its answer enveloped. */
function run(handler: AnyHandler, deps: PipelineDeps): (input: AnyInput) => Promise<unknown> {
  const { db, admission } = deps;
  const send = (input: AnyInput, answer: StoredAnswer) => {
    for (const [name, value] of Object.entries(answer.headers)) input.res.setHeader(name, value);
    return { status: answer.status, body: answer.body };
  };
  const callerOf = (req: Request) => {
    const { caller } = req.state;
    if (!caller) throw new Error('a change whose caller was not read before its body');
    return caller;
  };
  switch (handler.kind) {
    case 'public':
      return async (input) => handler.raw(input as never);
    case 'read':
      if ('raw' in handler) {
        // A download holds its slot, and its connection of the long pool, until the client has it all.
        return async (input) => {
          const release = await deps.downloads?.acquire(
            admissionKeyOf(input.req),
            'read',
            input.req.state.end,
          );
          if (release) input.res.once('close', release);
          return handler.raw(
            { db: deps.long ?? db, requester: requesterOf(input.req, deps.atSignIn) },
            input as never,
          );
        };
      }
      return async (input) =>
        send(
          input,
          await admitted(admission, input.req, 'read', () =>
            answered(input.req, undefined, () =>
              handler.handle({ db, requester: requesterOf(input.req, deps.atSignIn) }, input as never),
            ),
          ),
        );
    case 'write':
      return async (input) => {
        const { req } = input;
        const replay = replayOf(req);
        if (replay) return send(input, replay);
        const caller = callerOf(req);
        const context = {
          db,
          caller,
          audit: auditContextOf(caller, req.requestId),
          ...(req.state.access && { access: req.state.access }),
        };
        return send(
          input,
          await releasingKeyOnError(req, () =>
            admitted(admission, req, 'read', () =>
              answered(req, undefined, () => handler.handle(context, input as never)),
            ),
          ),
        );
      };
    case 'tenantWrite':
      return async (input) => {
        const { req } = input;
        const replay = replayOf(req);
        if (replay) return send(input, replay);
        const tenantId = tenantOf(req);
        if (!tenantId) throw new Error('a tenant write without a valid tenant id after validation');
        const { prepare, readAhead } = handler;
        if (prepare) {
          // Its work (a name resolved over the network) is done only for a caller who may: decided
          // now if its small body came whole with the headers (DECIDE_EARLY.tenantWrite).
          await decided(deps, req);
          await prepare({ ...(req.state.access && { access: req.state.access }) }, input as never);
        }
        return send(
          input,
          await releasingKeyOnError(req, () =>
            admitted(admission, req, 'write', () =>
              inTenantTransaction(db, req, tenantId, {
                work: (context, ahead) =>
                  answered(req, context.tx, () => handler.handle(context, input as never, ahead)),
                ...(readAhead && { readAhead: (tx) => readAhead(tx, tenantId, input as never) }),
                ...(deps.atSignIn && { atSignIn: deps.atSignIn }),
              }),
            ),
          ),
        );
      };
    case 'scim':
      return async (input) => {
        const { req, res } = input;
        const directory = req.state.directory;
        if (!directory) throw new Error('a SCIM route past its token check without a directory');
        const audit = {
          actor: { userId: null, subject: `scim-token:${directory.tokenId}`, isSuperAdmin: false },
          requestId: req.requestId,
        };
        const baseUrl = scimBaseUrlOf(req, directory.tenantId);
        const answer =
          req.method === 'GET'
            ? await admitted(admission, req, 'read', () =>
                handler.handle({ db, directory, audit, baseUrl }, input as never),
              )
            : await admitted(admission, req, 'write', () =>
                inDirectoryTransaction(db, req, directory.tenantId, (tx) =>
                  handler.handle({ db: tx, directory, audit, baseUrl }, input as never),
                ),
              );
        for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
        if (answer.body !== undefined) res.setHeader('Content-Type', `${SCIM_MEDIA_TYPE}; charset=utf-8`);
        return { status: answer.status, body: answer.body };
      };
    case 'upload':
      return async (input) => {
        const { req } = input;
        const body = handler.fingerprint(input as never);
        const replay = replayOf(req, body);
        if (replay) return send(input, replay);
        const caller = callerOf(req);
        const { access } = req.state;
        if (!access) throw new Error('an upload not decided before its body');
        const context = { db, caller, access, audit: auditContextOf(caller, req.requestId) };
        return send(
          input,
          await releasingKeyOnError(req, () =>
            admitted(admission, req, 'write', () =>
              answered(req, undefined, () => handler.handle(context, input as never), body),
            ),
          ),
        );
      };
  }
}
