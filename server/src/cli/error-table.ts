import { readFileSync, writeFileSync } from 'node:fs';
import { withErrorTable } from '../openapi/error-table.js';

// `npm run docs:errors`: regenerates the table of docs/errors.md from the contract; a test fails
// while the committed file is not what this writes.
const target = new URL('../../../docs/errors.md', import.meta.url);
writeFileSync(target, withErrorTable(readFileSync(target, 'utf8')));
console.warn(`wrote ${target.pathname}`);
