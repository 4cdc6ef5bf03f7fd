import { readFileSync, writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from './openapi.js';

const packageJson = new URL('../package.json', import.meta.url);
const target = new URL('../openapi.json', import.meta.url);
const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };

writeFileSync(target, `${JSON.stringify(buildOpenApiDocument(version), null, 2)}\n`);
console.warn(`wrote ${target.pathname}`);
