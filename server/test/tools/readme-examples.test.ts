import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSuperAdmin, createTenantFixture, unique } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/harness.js';

const root = (path: string) => fileURLToPath(new URL(`../../../${path}`, import.meta.url));
const fencedBlocks = (doc: string) =>
  [...readFileSync(root(doc), 'utf8').matchAll(/```\w*\n([\s\S]*?)```/g)].map((match) => match[1]);

// Each example lives in docs/examples/, where it is typechecked and run, and is quoted verbatim by
// the page that shows it.
const QUOTED = [
  ['client/README.md', 'docs/examples/frontend.ts'],
  ['docs/api.md', 'docs/examples/curl.sh'],
];

let h: TestServer;
beforeAll(async () => {
  h = await startTestServer();
});
afterAll(() => h?.close());

describe('the examples quoted by the docs', () => {
  it.each(QUOTED)('%s quotes %s verbatim', (doc, file) => {
    expect(fencedBlocks(doc)).toContain(readFileSync(root(file), 'utf8').trimEnd().concat('\n'));
  });

  it('typechecks the frontend example against the SDK', () => {
    expect(() =>
      execFileSync(root('node_modules/.bin/tsc'), ['-p', root('docs/examples/tsconfig.json')], {
        stdio: 'pipe',
      }),
    ).not.toThrow();
  });

  it('runs the frontend example: promotes the teacher, and explains a refusal', async () => {
    const tenant = await createTenantFixture(h);
    const email = `${unique('teacher')}@example.test`;
    const owner = h.client(tenant.owner.token);
    await owner.memberships.create({
      params: { tenantId: tenant.tenantId },
      body: { role: 'TEACHER', email },
    });
    const scenario = root('docs/examples/frontend.ts');
    const { promoteToAdmin } = (await import(scenario)) as {
      promoteToAdmin: (
        baseUrl: string,
        getToken: () => Promise<string>,
        tenantId: string,
        email: string,
      ) => Promise<{ role: string } | undefined>;
    };
    const promoted = await promoteToAdmin(h.baseUrl, async () => tenant.owner.token, tenant.tenantId, email);
    expect(promoted).toMatchObject({ role: 'ADMIN', version: 2 });
    expect(
      await promoteToAdmin(h.baseUrl, async () => tenant.owner.token, tenant.tenantId, email),
    ).toBeUndefined();
    await expect(
      promoteToAdmin('http://127.0.0.1:9', async () => tenant.owner.token, tenant.tenantId, email),
    ).rejects.toThrow('You are offline');
  });

  it('runs the curl example', async () => {
    const admin = await createSuperAdmin(h);
    // Asynchronous: the server answering curl runs in this very process.
    const { stdout: output } = await promisify(execFile)('bash', [root('docs/examples/curl.sh')], {
      env: { ...process.env, BASE: h.baseUrl, TOKEN: admin.token },
      encoding: 'utf8',
    });
    const [created, refused, openapi] = output.trim().split('\n');
    expect(JSON.parse(created ?? '')).toMatchObject({ success: true, data: { slug: 'shelbyville' } });
    expect(JSON.parse(refused ?? '')).toMatchObject({ success: false, error: { code: 'VALIDATION_FAILED' } });
    expect(openapi).toContain('"openapi":"3.0');
  });
});
