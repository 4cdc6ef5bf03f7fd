import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const src = new URL('../src/', import.meta.url);

// What an SDK user installs: the contract is the client's only heavy dependency, so anything
// added here (OpenAPI tooling, a server library) ends up in every frontend that uses the SDK.
describe('the published contract', () => {
  it('depends on zod and @ts-rest/core only', () => {
    const runtime = { ...packageJson.dependencies, ...packageJson.peerDependencies };
    expect(Object.keys(runtime).sort()).toEqual(['@ts-rest/core', 'zod']);
    expect(packageJson.exports['./openapi']).toBeUndefined();
  });

  it('imports nothing else in its sources', () => {
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const text = readFileSync(new URL(file, src), 'utf8');
      const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => m[1] ?? '');
      for (const specifier of specifiers) {
        expect(specifier, file).toMatch(/^(\.{1,2}\/|zod$|@ts-rest\/core$)/);
      }
    }
  });
});
