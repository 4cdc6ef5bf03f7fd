import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const CLIENT = fileURLToPath(new URL('..', import.meta.url));
/** What one SDK call may cost a browser app, gzipped (it was 19 KB when zod came along). */
const BUDGET_GZIP = 8 * 1024;

/** A browser app of a few lines, bundled and minified as a frontend's build would, against dist/. */
async function bundle(app: string) {
  const result = await build({
    stdin: { contents: app, resolveDir: CLIENT, loader: 'ts' },
    bundle: true,
    minify: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    logLevel: 'silent',
    metafile: true,
  });
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  const [output] = Object.values(result.metafile.outputs);
  return {
    text: new TextDecoder().decode(code),
    gzip: gzipSync(code).length,
    /** Every file esbuild read, kept or not. */
    inputs: Object.keys(result.metafile.inputs),
    /** The files that have code in the bundle. */
    kept: Object.entries(output?.inputs ?? {})
      .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
      .map(([path]) => path),
  };
}

const fromPackages = (inputs: string[]) =>
  inputs
    .filter((path) => /node_modules|contract\/dist/.test(path))
    .map((path) => path.replace(/^.*?(node_modules\/|contract\/dist\/)/, '$1'));

describe('the browser bundle of one SDK call', () => {
  it.each([
    [
      'me()',
      "import { createClient } from '@tms/client';\ncreateClient({ baseUrl: '/api', token: 't' }).me().then(console.log);",
    ],
    [
      'memberships.list()',
      "import { createClient } from '@tms/client';\ncreateClient({ baseUrl: '/api' }).memberships.list('t', { role: 'TEACHER' }).then(console.log);",
    ],
  ])('%s fits the budget, and carries neither zod nor ts-rest nor the contract', async (_, app) => {
    const { gzip, kept, text } = await bundle(app);
    expect(gzip).toBeLessThanOrEqual(BUDGET_GZIP);
    expect(fromPackages(kept)).toEqual([]);
    expect(text).not.toMatch(/ZodError|initClient/);
  });

  it('keeps only the roles of the contract when a screen shows them, and the error helpers', async () => {
    const { gzip, kept } = await bundle(
      "import { createClient, isApiError, ROLES, ROLE_LEVEL } from '@tms/client';\n" +
        "console.log(ROLES, ROLE_LEVEL, isApiError, createClient({ baseUrl: '/api' }).tenants.create({ name: 'a', slug: 'aaa', owner: { email: 'a@b.c' } }));",
    );
    expect(gzip).toBeLessThanOrEqual(BUDGET_GZIP);
    expect(fromPackages(kept)).toEqual(['contract/dist/roles.js']);
  });

  it('puts ts-rest and zod in the bundle of @tms/client/raw, which runs them (so the checks above can fail)', async () => {
    const { kept } = await bundle(
      "import { createRawClient } from '@tms/client/raw';\ncreateRawClient({ baseUrl: '/api' }).me.get().then(console.log);",
    );
    const packages = fromPackages(kept).join('\n');
    expect(packages).toContain('node_modules/@ts-rest/core/');
    expect(packages).toContain('node_modules/zod/');
  });

  it('has no Node-only import, in either entry', async () => {
    for (const entry of ['@tms/client', '@tms/client/raw']) {
      const { inputs, text } = await bundle(`export * from '${entry}';`);
      expect(inputs.filter((path) => path.startsWith('node:') || path.includes('/server/'))).toEqual([]);
      expect(text).not.toMatch(/require\(["']node:|from ["']node:/);
    }
  });
});
