import { readFileSync, writeFileSync } from 'node:fs';
import { withAuditCatalogue } from '../openapi/audit-catalogue.js';

// `npm run docs:audit`: regenerates the event catalogue of docs/audit.md from the contract; a test
// fails while the committed file is not what this writes.
const target = new URL('../../../docs/audit.md', import.meta.url);
writeFileSync(target, withAuditCatalogue(readFileSync(target, 'utf8')));
console.warn(`wrote ${target.pathname}`);
