import { readFileSync } from 'node:fs';
import { ROSTER_COLUMNS, ROSTER_ROW_ERROR_CODES, ROSTER_WARNING_CODES } from '@tms/contract';
import { describe, expect, it } from 'vitest';

// A school administrator reads a code in the command's table and looks it up in docs/rosters.md:
// every code the service can answer must be there, and nothing it cannot.

const doc = readFileSync(new URL('../../../docs/rosters.md', import.meta.url), 'utf8');

/** The codes in the first column of the table under `### heading`. */
function codesUnder(heading: string): string[] {
  const section = doc.split(`\n### ${heading}\n`)[1]?.split(/\n#{2,3} /)[0] ?? '';
  return [...section.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map(([, code]) => code as string);
}

describe('docs/rosters.md', () => {
  it('lists exactly the row error codes of the contract, each once', () => {
    const listed = codesUnder('Errors');
    expect(listed).toHaveLength(new Set(listed).size);
    expect([...listed].sort()).toEqual([...ROSTER_ROW_ERROR_CODES].sort());
  });

  it('lists exactly the warning codes of the contract, each once', () => {
    const listed = codesUnder('Warnings');
    expect(listed).toHaveLength(new Set(listed).size);
    expect([...listed].sort()).toEqual([...ROSTER_WARNING_CODES].sort());
  });

  it('names every column the import reads', () => {
    for (const column of ROSTER_COLUMNS) expect(doc, column).toContain(`\`${column}\``);
  });
});
