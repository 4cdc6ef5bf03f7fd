import type {
  CreateMembershipBody,
  CreateTenantBody,
  ErrorEnvelope,
  ListMembershipsQuery,
  ListTenantsQuery,
  Me,
  Membership,
  Tenant,
  UpdateMembershipBody,
  UpdateTenantBody,
} from '@tms/contract';
import { ApiError, NetworkError } from './errors.js';
import { type ClientOptions, createRawClient } from './raw-client.js';

export type Page<T> = { items: T[]; nextCursor: string | null };
type PageQuery<Q> = Partial<Omit<Q, 'cursor'>> & { cursor?: string };

type Answer = { status: number; body: unknown; headers: Headers };
const isSuccess = (status: number) => status >= 200 && status < 300;

function isErrorEnvelope(body: unknown): body is ErrorEnvelope {
  return typeof body === 'object' && body !== null && (body as { success?: unknown }).success === false;
}

/** `{ ifMatch: version }` as the If-Match header: the change is refused if the resource moved on. */
type Precondition = { ifMatch?: number };
const ifMatchHeaders = (options: Precondition) =>
  options.ifMatch === undefined ? {} : { 'if-match': `"${options.ifMatch}"` };

const unexpected = (status: number) =>
  new NetworkError(`unexpected ${status} answer without an error envelope`);

/** Success: the envelope's `data`; error envelope: ApiError; anything else: NetworkError. */
function unwrap<T>(res: Answer): T {
  if (isSuccess(res.status)) return (res.body as { data: T }).data;
  if (isErrorEnvelope(res.body)) throw new ApiError(res.status, res.body.error);
  throw unexpected(res.status);
}

function unwrapPage<T>(res: Answer): Page<T> {
  const data = unwrap<T[]>(res);
  return { items: data, nextCursor: (res.body as { meta: { nextCursor: string | null } }).meta.nextCursor };
}

function unwrapNoContent(res: Answer): void {
  if (res.status !== 204) unwrap(res);
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
 * (with a typed `code`) or NetworkError.
 */
export function createClient(options: ClientOptions) {
  const raw = createRawClient(options);

  const tenants = {
    create: async (body: CreateTenantBody): Promise<Tenant> => unwrap(await raw.tenants.create({ body })),
    list: async (query: PageQuery<ListTenantsQuery> = {}): Promise<Page<Tenant>> =>
      unwrapPage(await raw.tenants.list({ query })),
    listAll: (query: Omit<PageQuery<ListTenantsQuery>, 'cursor'> = {}): AsyncGenerator<Tenant> =>
      allPages((cursor) => tenants.list({ ...query, cursor })),
    get: async (tenantId: string): Promise<Tenant> => unwrap(await raw.tenants.get({ params: { tenantId } })),
    /** With `ifMatch` (a tenant's `version`), refuses with PRECONDITION_FAILED if it changed since. */
    update: async (tenantId: string, body: UpdateTenantBody, options: Precondition = {}): Promise<Tenant> =>
      unwrap(await raw.tenants.update({ params: { tenantId }, body, headers: ifMatchHeaders(options) })),
    remove: async (tenantId: string, options: Precondition = {}): Promise<void> =>
      unwrapNoContent(await raw.tenants.remove({ params: { tenantId }, headers: ifMatchHeaders(options) })),
  };

  const memberships = {
    list: async (tenantId: string, query: PageQuery<ListMembershipsQuery> = {}): Promise<Page<Membership>> =>
      unwrapPage(await raw.memberships.list({ params: { tenantId }, query })),
    listAll: (tenantId: string, query: Omit<PageQuery<ListMembershipsQuery>, 'cursor'> = {}) =>
      allPages<Membership>((cursor) => memberships.list(tenantId, { ...query, cursor })),
    get: async (tenantId: string, tenantMembershipId: string): Promise<Membership> =>
      unwrap(await raw.memberships.get({ params: { tenantId, tenantMembershipId } })),
    create: async (tenantId: string, body: CreateMembershipBody): Promise<Membership> =>
      unwrap(await raw.memberships.create({ params: { tenantId }, body })),
    /** With `ifMatch` (a membership's `version`), refuses with PRECONDITION_FAILED if it changed since. */
    update: async (
      tenantId: string,
      tenantMembershipId: string,
      body: UpdateMembershipBody,
      options: Precondition = {},
    ): Promise<Membership> =>
      unwrap(
        await raw.memberships.update({
          params: { tenantId, tenantMembershipId },
          body,
          headers: ifMatchHeaders(options),
        }),
      ),
    remove: async (tenantId: string, tenantMembershipId: string, options: Precondition = {}): Promise<void> =>
      unwrapNoContent(
        await raw.memberships.remove({
          params: { tenantId, tenantMembershipId },
          headers: ifMatchHeaders(options),
        }),
      ),
  };

  return {
    tenants,
    memberships,
    me: async (): Promise<Me> => unwrap(await raw.me.get()),
    /** Probes answer bare bodies; readiness and the report also answer them with 503. */
    health: {
      live: async () => {
        const res = await raw.health.live();
        if (res.status === 200) return res.body;
        throw unexpected(res.status);
      },
      ready: async () => {
        const res = await raw.health.ready();
        if (res.status === 200 || res.status === 503) return res.body;
        throw unexpected(res.status);
      },
      report: async () => {
        const res = await raw.health.report();
        if (res.status === 200 || res.status === 503) return res.body;
        throw unexpected(res.status);
      },
    },
    raw,
  };
}
export type Client = ReturnType<typeof createClient>;
