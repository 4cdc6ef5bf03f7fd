import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN, type Spawned, spawnServer } from '../support/spawn-server.js';

// The README and the docs promise links that lead somewhere and commands that work: this holds
// them to it. Code spans and fenced blocks are examples, not links, and are skipped.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  'CHANGELOG.md',
  'client/README.md',
  'bench/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const README = read('README.md');
const SCRIPTS = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;

/** The text outside fenced blocks, with code spans blanked. */
const prose = (markdown: string) =>
  markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').replace(/`[^`\n]*`/g, '``');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading = ''] of markdown
    .replace(/^```[\s\S]*?^```/gm, '')
    .matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const text = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Every relative link and image of a markdown file: [text](target), ![alt](target). */
const relativeLinks = (markdown: string) =>
  [...prose(markdown).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map(([, target = '']) => target)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));

describe('links in the README and the docs', () => {
  it.each(DOCS)('%s: every relative link leads to a file, and every anchor to a heading', (doc) => {
    const broken: string[] = [];
    for (const target of relativeLinks(read(doc))) {
      const [path = '', anchor] = target.split('#');
      const file = path === '' ? doc : relative(ROOT, join(ROOT, dirname(doc), decodeURIComponent(path)));
      if (!existsSync(join(ROOT, file))) {
        broken.push(`${target}: no file ${file}`);
      } else if (anchor !== undefined && !anchorsOf(read(file)).has(anchor)) {
        broken.push(`${target}: no heading "#${anchor}" in ${file}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('finds the links it checks (a sanity check of the parser)', () => {
    expect(relativeLinks(README)).toContain('docs/api.md#walkthrough-with-curl');
    expect(anchorsOf('## Browsers: CORS and security headers\n## `ETag` and If-Match\n## A\n## A')).toEqual(
      new Set(['browsers-cors-and-security-headers', 'etag-and-if-match', 'a', 'a-1']),
    );
  });
});

describe('the README', () => {
  it('stays short: at most 200 lines', () => {
    expect(README.trimEnd().split('\n').length).toBeLessThanOrEqual(200);
  });

  it('states the Node versions that package.json requires', () => {
    const { engines } = JSON.parse(read('package.json')) as { engines: { node: string } };
    expect(README).toContain(engines.node);
    expect(read('CONTRIBUTING.md')).toContain(engines.node);
  });

  it.each(DOCS)('%s names only npm scripts that exist in the root package.json', (doc) => {
    const named = [...read(doc).matchAll(/\bnpm run(?: -s)? ([\w:.-]+)/g)].map(([, name]) => name);
    const missing = named.filter((name) => name === undefined || !(name in SCRIPTS));
    expect(missing).toEqual([]);
    if (doc === 'README.md') expect(named.length).toBeGreaterThan(10);
  });

  it('uses npm start and npm test, which exist', () => {
    expect(README).toMatch(/npm start/);
    expect(README).toMatch(/npm test/);
    expect(SCRIPTS).toHaveProperty('start');
    expect(SCRIPTS).toHaveProperty('test');
  });
});

describe('docs/configuration.md', () => {
  it('lists every variable of server/src/config-env.ts, and no other', () => {
    const source = read('server/src/config-env.ts');
    const schema = source.slice(source.indexOf('const EnvSchema'), source.indexOf('.superRefine('));
    const inConfig = [...schema.matchAll(/^ {4}([A-Z][A-Z0-9_]+):/gm)].map(([, name]) => name).sort();
    const table = read('docs/configuration.md').split('\n## ')[1] ?? '';
    const inDocs = [...table.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map(([, name]) => name).sort();
    expect(inConfig).toContain('AUTH_MAX_TOKEN_LIFETIME');
    expect(inDocs).toEqual(inConfig);
  });
});

// `npm start` and `npm run token` build with turbo, then run a file of server/dist: the build is
// what `npm test` does first, and a turbo cache hit rewrites dist/ under the other test files'
// feet, so the files are run directly here, after checking that the scripts run exactly them.
describe('the quick start, in a directory of its own', () => {
  const tokenCli = join(ROOT, 'server/dist/cli/token.js');
  let workdir: string;
  let server: Spawned | undefined;

  beforeAll(() => {
    workdir = mkdtempSync(join(tmpdir(), 'tms-readme-'));
  });
  afterAll(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGKILL');
      await server.exit;
    }
    rmSync(workdir, { recursive: true, force: true });
  });

  const token = async (...args: string[]) => {
    const { stdout } = await promisify(execFile)(process.execPath, [tokenCli, ...args], {
      cwd: workdir,
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
    });
    return stdout;
  };
  const me = async (bearer: string) => {
    const res = await fetch(`${server?.baseUrl}/me`, { headers: { authorization: `Bearer ${bearer}` } });
    return { status: res.status, body: (await res.json()) as { data?: { user: { isSuperAdmin: boolean } } } };
  };

  it('npm start builds, then runs server/dist/main.js; npm run token runs server/dist/cli/token.js', () => {
    expect(SCRIPTS.start).toMatch(/^turbo run build\b.* && node server\/dist\/main\.js$/);
    expect(MAIN).toBe(join(ROOT, 'server/dist/main.js')); // what spawnServer runs below
    // The build's output goes to stderr, so that `npm run -s token` prints the token alone.
    expect(SCRIPTS.token).toMatch(/^turbo run build\b.* >&2 && node server\/dist\/cli\/token\.js$/);
  });

  it('starts on PGlite, keeps its state in .data/, and prints the docs URL and a working token', async () => {
    server = await spawnServer({}, workdir);
    const output = server.output();
    expect(output).toContain(`Docs:  ${server.baseUrl}/docs`);
    expect(existsSync(join(workdir, '.data/pglite'))).toBe(true);
    expect(existsSync(join(workdir, '.data/auth-jwt-secret'))).toBe(true);
    const printed = /TOKEN=(\S+)/.exec(output)?.[1] ?? '';
    expect(printed).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(await me(printed)).toMatchObject({
      status: 200,
      body: { data: { user: { isSuperAdmin: true } } },
    });
  });

  it('`npm run -s token -- --sub local-admin` prints one JWT that the running server accepts', async () => {
    const stdout = await token('--sub', 'local-admin');
    expect(stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    expect(await me(stdout.trim())).toMatchObject({
      status: 200,
      body: { data: { user: { isSuperAdmin: true } } },
    });
  });

  it('stops on SIGTERM with exit code 0', async () => {
    server?.child.kill('SIGTERM');
    expect(await server?.exit).toEqual({ code: 0, signal: null });
  });
});
