import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SERVER_MAIN = join(ROOT, 'server/dist/main.js');
const SIGN_TOKEN = join(ROOT, 'server/dist/auth/sign-token.js');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const SECRET = 'installed-sdk-test-secret-0123456789abcdef';

type PackageJson = {
  name: string;
  version: string;
  type?: string;
  exports: Record<string, unknown>;
  files: string[];
  scripts: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};
const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;
const client = readJson<PackageJson>(join(ROOT, 'client/package.json'));
const contract = readJson<PackageJson>(join(ROOT, 'contract/package.json'));

/** npm, outside this workspace: none of the npm_* variables of an `npm test` that runs us. */
function npm(args: string[], cwd: string, cache: string) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  return run('npm', args, {
    cwd,
    env: { ...env, npm_config_cache: cache, npm_config_update_notifier: 'false' },
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
}

describe('package.json', () => {
  it('declares ESM entry points with types, a build before packing, and only what is published', () => {
    for (const pkg of [client, contract]) {
      expect(pkg.type).toBe('module');
      expect(pkg.exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
      expect(pkg.scripts.prepack).toMatch(/npm run build$/);
      expect(pkg.files).toEqual(expect.arrayContaining(['dist', 'src']));
    }
    expect(client.exports['./raw']).toEqual({ types: './dist/raw.d.ts', default: './dist/raw.js' });
  });

  it('versions the client with the contract, and depends on it by a caret range', () => {
    expect(client.version).toBe(contract.version);
    expect(client.dependencies?.['@tms/contract']).toBe(`^${contract.version}`);
    expect(Object.keys({ ...client.dependencies, ...client.peerDependencies })).not.toContain('@tms/server');
  });
});

describe('the packages, installed from their tarballs in a project outside the workspace', () => {
  let work: string;
  let app: string;
  let packed: { name: string; filename: string; files: { path: string }[] }[] = [];
  let server: ChildProcess | undefined;
  let baseUrl: string;

  beforeAll(async () => {
    for (const path of [SERVER_MAIN, SIGN_TOKEN]) {
      if (!existsSync(path)) throw new Error(`${path} is missing: build the server (npx turbo run build)`);
    }
    work = mkdtempSync(join(tmpdir(), 'tms-sdk-install-'));
    app = join(work, 'app');
    mkdirSync(app);
    const cache = (await npm(['config', 'get', 'cache'], ROOT, '')).stdout.trim() || join(work, 'cache');
    // dist/ is built by the test's turbo dependencies; `prepack` would rebuild it under the feet of
    // other suites that import it, so the scripts are skipped here (the first test checks prepack).
    const { stdout } = await npm(
      [
        'pack',
        '--json',
        '--ignore-scripts',
        '--pack-destination',
        work,
        '-w',
        '@tms/contract',
        '-w',
        '@tms/client',
      ],
      ROOT,
      cache,
    );
    packed = JSON.parse(stdout);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'frontend', private: true, type: 'module' }),
    );
    await npm(
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        ...packed.map((p) => join(work, p.filename)),
      ],
      app,
      cache,
    );
    server = spawn(process.execPath, [SERVER_MAIN], {
      cwd: work,
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        PGLITE_DATA_DIR: join(work, 'pglite'),
        AUTH_JWT_SECRET: SECRET,
        SUPER_ADMIN_SUBJECTS: 'installed-admin',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    baseUrl = await listening(server);
  }, 240_000);

  afterAll(async () => {
    if (server && server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server?.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    if (work) rmSync(work, { recursive: true, force: true });
  }, 30_000);

  it('packs the built entry points, their sources (for the source maps), and no tests', () => {
    const files = (name: string) => packed.find((p) => p.name === name)?.files.map((f) => f.path) ?? [];
    const clientFiles = files('@tms/client');
    expect(clientFiles).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/raw.js',
        'dist/raw.d.ts',
      ]),
    );
    expect(files('@tms/contract')).toEqual(
      expect.arrayContaining(['package.json', 'dist/index.js', 'openapi.json']),
    );
    for (const path of [...clientFiles, ...files('@tms/contract')])
      expect(path).not.toMatch(/^test\/|\.test\./);
    // A leftover of an old build would be published: every compiled file has its source.
    for (const path of clientFiles.filter((f) => f.endsWith('.js'))) {
      expect(clientFiles).toContain(path.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts'));
    }
  });

  it('installs the two tarballs and registry packages only: the contract, ts-rest and zod', () => {
    const installed = readdirSync(join(app, 'node_modules'))
      .filter((name) => !name.startsWith('.'))
      .flatMap((name) =>
        name.startsWith('@')
          ? readdirSync(join(app, 'node_modules', name)).map((n) => `${name}/${n}`)
          : [name],
      )
      .sort();
    expect(installed).toEqual(['@tms/client', '@tms/contract', '@ts-rest/core', 'zod']);
  });

  it('typechecks a frontend module under strict, with Node and bundler module resolution', async () => {
    cpSync(fileURLToPath(new URL('installed/consumer.ts', import.meta.url)), join(app, 'consumer.ts'));
    const compilerOptions = {
      strict: true,
      noUncheckedIndexedAccess: true,
      target: 'ES2022',
      lib: ['ES2022', 'DOM'],
      types: [],
      skipLibCheck: false,
    };
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          ...compilerOptions,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          outDir: 'out',
        },
        files: ['consumer.ts'],
      }),
    );
    writeFileSync(
      join(app, 'tsconfig.bundler.json'),
      JSON.stringify({
        compilerOptions: { ...compilerOptions, module: 'ESNext', moduleResolution: 'Bundler', noEmit: true },
        files: ['consumer.ts'],
      }),
    );
    const tsc = (project: string) =>
      run(process.execPath, [TSC, '-p', project], { cwd: app, encoding: 'utf8' }).catch((error) => {
        throw new Error(`tsc -p ${project}:\n${error.stdout}${error.stderr}`);
      });
    await tsc('tsconfig.bundler.json');
    await tsc('tsconfig.json');
    expect(existsSync(join(app, 'out/consumer.js'))).toBe(true);
  }, 120_000);

  it('runs it against a live server', async () => {
    const { signDevToken } = (await import(pathToFileURL(SIGN_TOKEN).href)) as {
      signDevToken: (secret: string, input: { sub: string }) => Promise<string>;
    };
    const token = await signDevToken(SECRET, { sub: 'installed-admin' });
    writeFileSync(
      join(app, 'main.mjs'),
      "import { run } from './out/consumer.js';\n" +
        'process.stdout.write(JSON.stringify(await run(process.env.BASE_URL, process.env.TOKEN)));\n',
    );
    const { stdout } = await run(process.execPath, ['main.mjs'], {
      cwd: app,
      env: { PATH: process.env.PATH ?? '', BASE_URL: baseUrl, TOKEN: token },
      encoding: 'utf8',
    });
    expect(JSON.parse(stdout)).toEqual([
      'super admin: true',
      'owners: owner@installed.test',
      'refused: VALIDATION_FAILED 400 true true',
      'raw: true',
      'offline: true',
      'request ids: true',
    ]);
  }, 60_000);
});

/** Waits for the built server's "listening on" line, as server/test/support/spawn-server.ts does. */
function listening(child: ChildProcess): Promise<string> {
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening on" line in 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = /listening on (http:\/\/[^"\s]+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code} before listening:\n${output}`));
    });
  });
}
