import { readFileSync, writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from './document.js';

// The document describes the contract, so it carries the contract's version and is committed next
// to it: CI's drift check and the SDK's `@tms/contract/openapi.json` both read it there.
const contractDir = new URL('../../../contract/', import.meta.url);
const target = new URL('openapi.json', contractDir);
const { version } = JSON.parse(readFileSync(new URL('package.json', contractDir), 'utf8')) as {
  version: string;
};

writeFileSync(target, `${JSON.stringify(buildOpenApiDocument(version), null, 2)}\n`);
console.warn(`wrote ${target.pathname}`);
