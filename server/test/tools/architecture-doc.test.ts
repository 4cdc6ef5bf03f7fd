import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// docs/architecture.md walks a request through the code by file and function: a rename or a move
// that forgets the page would leave a newcomer following names that no longer exist.

const root = fileURLToPath(new URL('../../../', import.meta.url));
const doc = readFileSync(`${root}docs/architecture.md`, 'utf8');

/** Where a path named in the page lives: the repository's root, or server/src for a short one. */
function pathOf(named: string): string {
  if (/^(server|contract|client|bench|docs|patches)\//.test(named)) return `${root}${named}`;
  return `${root}server/src/${named}`;
}

/** Code spans naming a file (`pipeline/handlers.ts`), or a file and what it exports (`x.ts: name`). */
const references = [...doc.matchAll(/`([\w./-]+\.(?:ts|md|json))(?::\s*([\w, ]+))?`/g)].map((match) => ({
  file: match[1] as string,
  names: (match[2] ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean),
}));

const exported = (source: string, name: string) =>
  new RegExp(
    `export (?:declare )?(?:async )?(?:function\\*? |const |let |class |type |interface )${name}\\b`,
  ).test(source) || new RegExp(`export \\{[^}]*\\b${name}\\b[^}]*\\}`).test(source);

describe('docs/architecture.md', () => {
  it('names files and functions, enough of them to be a walk', () => {
    expect(references.length).toBeGreaterThan(40);
    expect(references.filter((r) => r.names.length > 0).length).toBeGreaterThan(25);
  });

  it.each(references.map((r) => [r.names.length ? `${r.file}: ${r.names.join(', ')}` : r.file, r] as const))(
    '%s exists',
    (_label, reference) => {
      const path = pathOf(reference.file);
      // A bare file name (`biome.json`) or a test's path under server/test/ is found where it is said to be.
      const found =
        existsSync(path) ||
        existsSync(`${root}${reference.file}`) ||
        existsSync(`${root}server/test/${reference.file}`);
      expect(found, `${reference.file} is named in docs/architecture.md but does not exist`).toBe(true);
      if (reference.names.length === 0 || !existsSync(path)) return;
      const source = readFileSync(path, 'utf8');
      for (const name of reference.names) {
        expect(exported(source, name), `${reference.file} exports no ${name}`).toBe(true);
      }
    },
  );
});
