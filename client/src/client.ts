import type {
  Contract,
  CreateMembershipBody,
  CreateTenantBody,
  ErrorEnvelope,
  Me,
  Membership,
  Tenant,
  UpdateMembershipBody,
  UpdateTenantBody,
} from '@tms/contract';
import type { AppRoute, ClientInferResponseBody, ZodInferOrType, ZodInputOrType } from '@ts-rest/core';
import { ApiError, NetworkError } from './errors.js';
import type { CallOptions, ChangeOptions, ClientOptions, CreateOptions } from './options.js';
import { parseRetryAfter } from './retry.js';
import { routes } from './routes.js';
import { type Answer, type Call, createTransport, type Route } from './transport.js';

/** One page: `total` is there when asked for (`includeTotal: true`) on routes that count. */
export type Page<T> = { items: T[]; nextCursor: string | null; total?: number };

/**
 * A route's query as the caller writes it: every key the contract declares, optional, as sent
 * (`includeTotal: 'true'`) or as meant (`includeTotal: true`, `limit: 50`) when that is a string,
 * number or boolean.
 */
export type QueryOf<R extends AppRoute> = {
  [K in keyof ZodInputOrType<R['query']> | keyof ZodInferOrType<R['query']>]?:
    | (K extends keyof ZodInputOrType<R['query']> ? ZodInputOrType<R['query']>[K] : never)
    | (K extends keyof ZodInferOrType<R['query']>
        ? Extract<ZodInferOrType<R['query']>[K], string | number | boolean>
        : never);
};
type ListQuery<R extends AppRoute> = Omit<QueryOf<R>, 'cursor'>;
type BodyOf<R extends AppRoute, S extends keyof R['responses']> = ClientInferResponseBody<R, S>;

type Answered = Answer & { what: string };

const isSuccess = (status: number) => status >= 200 && status < 300;

function isErrorEnvelope(body: unknown): body is ErrorEnvelope {
  return typeof body === 'object' && body !== null && (body as { success?: unknown }).success === false;
}

const ifMatchHeaders = (options: ChangeOptions): Record<string, string> =>
  options.ifMatch === undefined ? {} : { 'if-match': `"${options.ifMatch}"` };

const unexpected = (res: Answered) =>
  new NetworkError(`${res.what}: unexpected ${res.status} answer without an error envelope`);

function apiError(res: Answered, body: ErrorEnvelope): ApiError {
  const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
  return new ApiError(res.status, body.error, {
    requestId: res.headers.get('x-request-id') ?? undefined,
    retryAfter: retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000),
  });
}

/** Success: the envelope's `data`; error envelope: ApiError; anything else: NetworkError. */
function unwrap<T>(res: Answered): T {
  if (isErrorEnvelope(res.body)) throw apiError(res, res.body);
  const body = res.body as { success?: unknown; data: T } | undefined;
  if (isSuccess(res.status) && body?.success === true) return body.data;
  throw unexpected(res);
}

function unwrapPage<T>(res: Answered): Page<T> {
  const items = unwrap<T[]>(res);
  const { meta } = res.body as { meta: { nextCursor: string | null; total?: number } };
  return meta.total === undefined
    ? { items, nextCursor: meta.nextCursor }
    : { items, nextCursor: meta.nextCursor, total: meta.total };
}

function unwrapNoContent(res: Answered): void {
  if (res.status !== 204) unwrap(res);
}

/** A probe's own body, on its success and on the statuses it declares (a 503 that says why). */
function unwrapProbe<T>(res: Answered, statuses: readonly number[]): T {
  if (statuses.includes(res.status)) return res.body as T;
  if (isErrorEnvelope(res.body)) throw apiError(res, res.body);
  throw unexpected(res);
}

/** Follows `nextCursor` until the last page. */
async function* allPages<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* page.items;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}

/**
 * The typed SDK: one method per route, answering the resource itself and throwing ApiError
 * (with a typed `code`) or NetworkError. Its runtime knows each route's method and path only
 * (routes.ts); the types all come from the contract.
 */
export function createClient(clientOptions: ClientOptions) {
  const transport = createTransport(clientOptions);
  const send = async <R extends Route>(call: Call<R>): Promise<Answered> => ({
    ...(await transport(call)),
    what: `${call.route.method} ${call.route.path}`,
  });
  const r = routes;

  const tenants = {
    create: async (body: CreateTenantBody, options: CreateOptions = {}): Promise<Tenant> =>
      unwrap(await send({ route: r.tenants.create, params: {}, body, options })),
    list: async (
      query: QueryOf<Contract['tenants']['list']> = {},
      options: CallOptions = {},
    ): Promise<Page<Tenant>> => unwrapPage(await send({ route: r.tenants.list, params: {}, query, options })),
    listAll: (
      query: ListQuery<Contract['tenants']['list']> = {},
      options: CallOptions = {},
    ): AsyncGenerator<Tenant> => allPages((cursor) => tenants.list({ ...query, cursor }, options)),
    get: async (tenantId: string, options: CallOptions = {}): Promise<Tenant> =>
      unwrap(await send({ route: r.tenants.get, params: { tenantId }, options })),
    /** With `ifMatch` (a tenant's `version`), refuses with PRECONDITION_FAILED if it changed since. */
    update: async (tenantId: string, body: UpdateTenantBody, options: ChangeOptions = {}): Promise<Tenant> =>
      unwrap(
        await send({
          route: r.tenants.update,
          params: { tenantId },
          body,
          headers: ifMatchHeaders(options),
          options,
        }),
      ),
    remove: async (tenantId: string, options: ChangeOptions = {}): Promise<void> =>
      unwrapNoContent(
        await send({
          route: r.tenants.remove,
          params: { tenantId },
          headers: ifMatchHeaders(options),
          options,
        }),
      ),
  };

  const memberships = {
    list: async (
      tenantId: string,
      query: QueryOf<Contract['memberships']['list']> = {},
      options: CallOptions = {},
    ): Promise<Page<Membership>> =>
      unwrapPage(await send({ route: r.memberships.list, params: { tenantId }, query, options })),
    listAll: (
      tenantId: string,
      query: ListQuery<Contract['memberships']['list']> = {},
      options: CallOptions = {},
    ): AsyncGenerator<Membership> =>
      allPages((cursor) => memberships.list(tenantId, { ...query, cursor }, options)),
    get: async (
      tenantId: string,
      tenantMembershipId: string,
      options: CallOptions = {},
    ): Promise<Membership> =>
      unwrap(await send({ route: r.memberships.get, params: { tenantId, tenantMembershipId }, options })),
    create: async (
      tenantId: string,
      body: CreateMembershipBody,
      options: CreateOptions = {},
    ): Promise<Membership> =>
      unwrap(await send({ route: r.memberships.create, params: { tenantId }, body, options })),
    /** With `ifMatch` (a membership's `version`), refuses with PRECONDITION_FAILED if it changed since. */
    update: async (
      tenantId: string,
      tenantMembershipId: string,
      body: UpdateMembershipBody,
      options: ChangeOptions = {},
    ): Promise<Membership> =>
      unwrap(
        await send({
          route: r.memberships.update,
          params: { tenantId, tenantMembershipId },
          body,
          headers: ifMatchHeaders(options),
          options,
        }),
      ),
    remove: async (
      tenantId: string,
      tenantMembershipId: string,
      options: ChangeOptions = {},
    ): Promise<void> =>
      unwrapNoContent(
        await send({
          route: r.memberships.remove,
          params: { tenantId, tenantMembershipId },
          headers: ifMatchHeaders(options),
          options,
        }),
      ),
  };

  return {
    tenants,
    memberships,
    me: async (options: CallOptions = {}): Promise<Me> =>
      unwrap(await send({ route: r.me.get, params: {}, options })),
    /** Probes answer bare bodies; readiness and the report also answer them with 503. */
    health: {
      live: async (options: CallOptions = {}): Promise<BodyOf<Contract['health']['live'], 200>> =>
        unwrapProbe(await send({ route: r.health.live, params: {}, options }), [200]),
      ready: async (options: CallOptions = {}): Promise<BodyOf<Contract['health']['ready'], 200 | 503>> =>
        unwrapProbe(await send({ route: r.health.ready, params: {}, options, answers: [503] }), [200, 503]),
      report: async (options: CallOptions = {}): Promise<BodyOf<Contract['health']['report'], 200 | 503>> =>
        unwrapProbe(await send({ route: r.health.report, params: {}, options, answers: [503] }), [200, 503]),
    },
  };
}
export type Client = ReturnType<typeof createClient>;
