import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

describe('the published package', () => {
  it('declares ESM entry points with types, and does not depend on the server', () => {
    expect(packageJson.type).toBe('module');
    expect(packageJson.exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
    expect(Object.keys({ ...packageJson.dependencies, ...packageJson.peerDependencies })).not.toContain(
      '@tms/server',
    );
  });

  it('bundles for the browser with no Node-only import', async () => {
    const result = await build({
      entryPoints: [new URL('../dist/index.js', import.meta.url).pathname],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      logLevel: 'silent',
      metafile: true,
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((path) => path.includes('@ts-rest/core'))).toBe(true);
    expect(inputs.filter((path) => path.startsWith('node:') || path.includes('/server/'))).toEqual([]);
    const code = result.outputFiles[0]?.text ?? '';
    expect(code).toContain('createClient');
    expect(code).not.toMatch(/require\(["']node:|from ["']node:/);
  });
});
