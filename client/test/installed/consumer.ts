// A frontend's module, typechecked under `strict` and run in a project of its own that installs
// @tms/contract and @tms/client from their tarballs (package.test.ts): not part of this package's build.
import { ApiError, createClient, isApiError, type Membership, NetworkError, type Page } from '@tms/client';
import { createRawClient } from '@tms/client/raw';

export async function run(baseUrl: string, token: string): Promise<string[]> {
  const log: string[] = [];
  const requestIds: string[] = [];
  const sdk = createClient({
    baseUrl,
    token: async () => token,
    onResponse: ({ requestId }) => {
      if (requestId) requestIds.push(requestId);
    },
  });

  const me = await sdk.me();
  log.push(`super admin: ${me.user.isSuperAdmin}`);
  const tenant = await sdk.tenants.create({
    name: 'Installed School',
    slug: `installed-${Date.now()}`,
    owner: { email: 'owner@installed.test' },
  });
  const owners: Page<Membership> = await sdk.memberships.list(tenant.tenantId, { role: 'OWNER', limit: 5 });
  log.push(`owners: ${owners.items.map((m) => m.user.email).join(',')}`);

  const refused = await sdk.tenants
    .create({ name: '', slug: 'x', owner: { email: 'nope' } }, { idempotencyKey: `bad-${Date.now()}` })
    .catch((error: unknown) => error);
  if (isApiError(refused, 'VALIDATION_FAILED')) {
    log.push(
      `refused: ${refused.code} ${refused.status} ${refused instanceof ApiError} ${refused.details.length > 0}`,
    );
  }

  const raw = await createRawClient({ baseUrl, token }).me.get();
  if (raw.status === 200) log.push(`raw: ${raw.body.data.user.isSuperAdmin}`);

  const offline = await createClient({ baseUrl: 'http://127.0.0.1:9', retries: false })
    .me()
    .catch((error: unknown) => error);
  log.push(`offline: ${offline instanceof NetworkError}`);
  log.push(`request ids: ${requestIds.length >= 3}`);
  return log;
}

/** Never called: the types must refuse what the contract refuses (an `any` would not). */
export function refusedByTheCompiler(sdk: ReturnType<typeof createClient>) {
  // @ts-expect-error: not a role the contract knows
  void sdk.memberships.list('t', { role: 'KING' });
  // @ts-expect-error: not a query key of this route
  void sdk.tenants.list({ role: 'OWNER' });
  // @ts-expect-error: a membership has no `slug`
  void sdk.memberships.get('t', 'm').then((m) => m.slug);
}
