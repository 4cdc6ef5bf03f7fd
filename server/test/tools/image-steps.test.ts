import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, join, posix, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signDevToken } from '../../src/auth/sign-token.js';
import { freePort } from '../support/free-port.js';
import { type BareDatabase, createBareDatabase } from '../support/test-database.js';
import {
  type Copy,
  copiesOf,
  envOf,
  execForm,
  healthcheckCommand,
  instructionsOf,
  isIgnored,
  parseDockerfile,
  workdirOf,
} from './dockerfile.js';

/*
 * No Docker daemon runs where the tests run, so the image is never built here. This test performs
 * the runtime stage's steps instead, read from the Dockerfile itself: it copies what the stage
 * copies from the build stage (the build stage's outputs are the ones `npm test` just built with
 * turbo), runs the stage's production install with the same arguments, then starts the service
 * with the image's CMD and ENV, calls it, runs the HEALTHCHECK command and stops it with SIGTERM.
 */

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const stages = parseDockerfile(readFileSync(join(REPO, 'Dockerfile'), 'utf8'));
const dockerignore = readFileSync(join(REPO, '.dockerignore'), 'utf8');

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`the Dockerfile has no ${what}`);
  return value;
}

const runtime = required(stages.at(-1), 'stage');
const copies = copiesOf(runtime);
const build = required(
  stages.find((stage) => copies.some((copy) => copy.from === stage.name)),
  'stage the runtime stage copies from',
);
const imageEnv = envOf(stages, runtime);
const command = execForm(required(instructionsOf(runtime, 'CMD').at(-1), 'CMD'));
const healthcheck = healthcheckCommand(
  required(instructionsOf(runtime, 'HEALTHCHECK').at(-1), 'HEALTHCHECK'),
);
const installRun = required(
  instructionsOf(runtime, 'RUN').find((run) => run.includes('npm ci')),
  'npm ci in the runtime stage',
);
const install = required(
  installRun
    .split('&&')
    .map((step) => step.trim())
    .find((step) => step.startsWith('npm ci')),
  'npm ci step',
).split(/\s+/);

/** Runtime steps not performed here, each with the reason that leaves the test sound without it. */
const NOT_PERFORMED: Record<string, string> = {
  'mkdir .data && chown node:node .data':
    'gives the non-root user a directory for PGlite; here the test owns the whole directory',
};

const SOURCES = copies.flatMap((copy) => copy.sources.map((source) => ({ copy, source })));
/** A path of the build stage as a path of this repository: the build stage starts with `COPY . .`. */
const inRepository = (source: string) => posix.relative(workdirOf(stages, build), source);
const packageName = (dir: string) =>
  (JSON.parse(readFileSync(join(REPO, dir, 'package.json'), 'utf8')) as { name: string }).name;

describe('the Dockerfile, read as the test performs it', () => {
  it('copies into the runtime stage only from the build stage, which starts from the whole context', () => {
    expect(copies.map((copy) => copy.from)).toEqual(copies.map(() => build.name));
    expect(instructionsOf(runtime, 'ADD')).toEqual([]);
    expect(copiesOf(build)).toContainEqual({ from: undefined, sources: ['.'], dest: '.' });
    for (const run of instructionsOf(runtime, 'RUN'))
      if (run !== installRun) expect(Object.keys(NOT_PERFORMED), run).toContain(run);
  });

  it('finds every copied source in the build context, or among what the build stage builds', () => {
    const turbo = required(
      instructionsOf(build, 'RUN').find((run) => run.includes('turbo run build')),
      'turbo build',
    );
    const built = [...turbo.matchAll(/--filter=(\S+)/g)].map((match) => match[1]);
    for (const { source } of SOURCES) {
      const path = inRepository(source);
      expect(existsSync(join(REPO, path)), `${path} exists (npm test builds dist/ first)`).toBe(true);
      if (!isIgnored(path, dockerignore)) continue;
      // Left out of the context, so it must come from the build: a workspace's compiled output.
      const match = /^(.+)\/dist$/.exec(path);
      expect(match, `${path} is in .dockerignore`).not.toBeNull();
      expect(built, `the build stage builds ${path}`).toContain(packageName(match?.[1] ?? ''));
    }
  });

  it('runs node as PID 1 as a non-root user, in production, on the npm of packageManager', () => {
    expect(command[0]).toBe('node');
    expect(healthcheck[0]).toBe('node');
    // The node image's own ENTRYPOINT, a shell script, would otherwise run first.
    expect(instructionsOf(runtime, 'ENTRYPOINT')).toEqual(['[]']);
    expect(instructionsOf(runtime, 'STOPSIGNAL')).toEqual(['SIGTERM']);
    expect(instructionsOf(runtime, 'USER').at(-1)).toMatch(/^(?!root$|0$)\S+$/);
    expect(imageEnv).toMatchObject({ NODE_ENV: 'production', HOST: '0.0.0.0' });
    expect(instructionsOf(runtime, 'EXPOSE')).toEqual([imageEnv.PORT]);
    expect(install).toContain('--omit=dev');
    const { packageManager } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
      packageManager: string;
    };
    expect(stages.flatMap((stage) => instructionsOf(stage, 'RUN')).join('\n')).toContain(packageManager);
  });
});

type Finished = { code: number | null; signal: NodeJS.Signals | null; output: string };
const running = new Map<ChildProcess, Promise<Finished>>();

/** Starts a process in a group of its own, so that cleanup also ends what it started (npm's scripts). */
function launch(argv: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const [file = '', ...args] = argv;
  // The image's `node` is the Node line the suite runs on: this very binary.
  const child = spawn(file === 'node' ? process.execPath : file, args, {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const finished = new Promise<Finished>((resolve) => {
    child.once('error', (error) => resolve({ code: null, signal: null, output: `${output}\n${error}` }));
    child.once('close', (code, signal) => resolve({ code, signal, output }));
  }).finally(() => running.delete(child));
  running.set(child, finished);
  return { child, output: () => output, finished };
}

async function killLeftovers() {
  for (const child of running.keys()) {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  await Promise.all(running.values());
}

function copyFromBuild(copy: Copy, source: string, root: string) {
  const from = join(REPO, inRepository(source));
  const destination = posix.relative(
    workdirOf(stages, runtime),
    posix.resolve(workdirOf(stages, runtime), copy.dest),
  );
  if (destination.startsWith('..')) throw new Error(`${copy.dest} is outside the image's WORKDIR`);
  let to = join(root, destination);
  // Docker's rules: a directory's contents go into the destination; files go into one ending in /.
  if (!statSync(from).isDirectory() && (copy.dest.endsWith('/') || copy.sources.length > 1))
    to = join(to, basename(from));
  mkdirSync(dirname(to), { recursive: true });
  cpSync(from, to, { recursive: true });
}

/**
 * PATH without the node_modules/.bin directories that npm and npx put in front of it: through them
 * the install or the server would find the repository's tools (patch-package) instead of failing.
 */
const systemPath = () =>
  (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => !dir.split(sep).includes('node_modules'))
    .join(delimiter);

let root: string;
let database: BareDatabase | undefined;
let installed: Finished;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tms-image-'));
  for (const { copy, source } of SOURCES) copyFromBuild(copy, source, root);
  // As in `docker build`: the stage's ENV, and no npm settings of the `npm test` that runs this.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'INIT_CWD'),
  );
  installed = await launch(install, root, { ...env, PATH: systemPath(), ...imageEnv }).finished;
}, 300_000);

afterAll(async () => {
  await killLeftovers();
  await database?.drop();
  if (root) rmSync(root, { recursive: true, force: true });
}, 60_000);

describe('the runtime stage, performed outside Docker', () => {
  it('installs the production dependencies only, with the patches applied', () => {
    expect(installed.code, installed.output).toBe(0);
    const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const tree = JSON.parse(readFileSync(join(root, 'node_modules/.package-lock.json'), 'utf8')) as {
      packages: Record<string, unknown>;
    };
    expect(Object.keys(tree.packages).filter((path) => lock.packages[path]?.dev)).toEqual([]);
    for (const name of [
      'vitest',
      'typescript',
      'drizzle-kit',
      'tsx',
      'turbo',
      '@biomejs/biome',
      '@tms/client',
    ])
      expect(existsSync(join(root, 'node_modules', name)), name).toBe(false);

    // Each patched file holds every line its patch adds.
    for (const name of readdirSync(join(root, 'patches')).filter((file) => file.endsWith('.patch'))) {
      const patch = readFileSync(join(root, 'patches', name), 'utf8');
      for (const [, file = '', body = ''] of patch.matchAll(
        /^diff --git a\/(\S+) \S+\n([\s\S]*?)(?=^diff --git |$(?![\s\S]))/gm,
      )) {
        const patched = readFileSync(join(root, file), 'utf8');
        const added = body.split('\n').filter((line) => /^\+(?!\+\+)\s*\S/.test(line));
        expect(added.length, `${name}: ${file}`).toBeGreaterThan(0);
        for (const line of added) expect(patched, `${name}: ${file}`).toContain(line.slice(1));
      }
    }
  });

  it('serves with the image CMD and ENV: ready, authenticated, healthy, and stops on SIGTERM with 0', async () => {
    expect(installed.code, installed.output).toBe(0);
    if (process.env.TEST_DATABASE_URL) database = await createBareDatabase();
    const port = String(await freePort());
    const secret = randomBytes(32).toString('base64url');
    // A container's environment: the image's ENV and what an operator passes, nothing of this process.
    const container = {
      PATH: systemPath(),
      HOME: root,
      ...imageEnv,
      PORT: port,
      AUTH_JWT_SECRET: secret,
      SUPER_ADMIN_SUBJECTS: 'image-admin',
      ...(database && { DATABASE_URL: database.url }),
    };
    const server = launch(command, root, container);
    await expect
      .poll(() => /listening on http/.test(server.output()) || running.has(server.child) === false, {
        timeout: 90_000,
        interval: 100,
      })
      .toBe(true);
    expect(server.output()).toMatch(/listening on http/);
    expect(server.output()).toContain(database ? '"database":"postgres"' : '"database":"pglite"');
    // Production: no development token is printed.
    expect(server.output()).not.toMatch(/eyJ[\w-]+\./);

    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/health/ready`)).status).toBe(200);
    expect((await fetch(`${base}/me`)).status).toBe(401);
    const token = await signDevToken(secret, { sub: 'image-admin' });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await fetch(`${base}/admin/tenants`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        name: 'Image School',
        slug: 'image-school',
        owner: { email: 'head@image.test' },
      }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const me = await fetch(`${base}/me`, { headers });
    expect(((await me.json()) as { data: { user: { isSuperAdmin: boolean } } }).data.user.isSuperAdmin).toBe(
      true,
    );

    const healthy = await launch(healthcheck, root, container).finished;
    expect(healthy.code, healthy.output).toBe(0);

    server.child.kill('SIGTERM');
    const stopped = await server.finished;
    expect({ code: stopped.code, signal: stopped.signal }, stopped.output).toEqual({ code: 0, signal: null });
    expect(stopped.output).toContain('"msg":"stopped"');
    // The same check fails once nothing answers: it is not a command that always succeeds.
    expect((await launch(healthcheck, root, container).finished).code).toBe(1);
    if (!database) expect(existsSync(join(root, '.data/pglite/PG_VERSION'))).toBe(true);
  }, 180_000);
});
