import { fileURLToPath } from 'node:url';
import newman from 'newman';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantFixture } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';
import { scimTokenOf } from '../support/scim.js';

/*
 * Microsoft's SCIM reference Postman collection (test/third-party/microsoft/SOURCE.md), its
 * "User tests" and "Group tests" folders run by newman against a live server with a SCIM token.
 * The requests that fail do so by design, each listed in docs/scim.md with why: the run must fail
 * exactly those (a new failure, or one that starts to pass, fails this test).
 */

const COLLECTION = fileURLToPath(
  new URL('../third-party/microsoft/SCIMReferenceCode.postman_collection.json', import.meta.url),
);

/** Request name → assertion: the known differences of docs/scim.md (Conformance). */
const KNOWN_FAILURES = [
  // userName is the person's email address here; "ryan3" is none, so it is not taken.
  'Get User1 Check Patch: Username is changed',
  // A member's display is the person's own name, not the one a PATCH of the group sent.
  'Get group by id: Body contians user',
  // Users 3 and 4 have different userNames ("UserName333", "UserName444", no addresses) but the
  // same email, which names one person here: the second POST is 409 uniqueness, and the requests
  // that use user 4's id (which the collection never got) fail after it.
  'Create user 4 for group 2: Status code is 201',
  'Put replace group3: Status code is 200',
  'Validate group 3: Body contians user id3',
  'Delete user id4: Status code is 204',
];

let h: TestServer;
let environment: { key: string; value: string }[];
beforeAll(async () => {
  h = await startTestServer();
  const tenant = await createTenantFixture(h);
  const token = await scimTokenOf(h, tenant.owner, tenant.tenantId);
  const { port } = new URL(h.baseUrl);
  environment = [
    { key: 'Protocol', value: 'http' },
    { key: 'Server', value: '127.0.0.1' },
    { key: 'Port', value: `:${port}` },
    { key: 'Api', value: `tenants/${tenant.tenantId}/scim/v2` },
    { key: 'token', value: token },
  ];
});
afterAll(() => h?.close());

type Failure = { source?: { name?: string }; error: { test?: string; message: string } };

function runFolders(folders: string[]) {
  return new Promise<{ requests: number; failures: Failure[] }>((resolve, reject) => {
    newman.run(
      {
        collection: COLLECTION,
        environment: { values: environment.map((variable) => ({ ...variable, enabled: true })) },
        folder: folders,
        reporters: [],
        timeoutRequest: 10_000,
      },
      (error, summary) => {
        if (error) return reject(error);
        resolve({
          requests: summary.run.stats.requests.total ?? 0,
          failures: summary.run.failures as unknown as Failure[],
        });
      },
    );
  });
}

describe("Microsoft's SCIM reference collection under newman", () => {
  it('passes the user and group folders but for the documented differences', async () => {
    const { requests, failures } = await runFolders(['User tests', 'Group tests']);
    expect(requests).toBe(31);
    const failed = failures.map(
      (failure) => `${failure.source?.name}: ${failure.error.test ?? failure.error.message}`,
    );
    expect(failed.sort()).toEqual([...KNOWN_FAILURES].sort());
  }, 120_000);
});
