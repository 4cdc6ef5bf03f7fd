/** The servers a run drives: the service, and beside it the floor or another build of the service. */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { config } from './config.js';
import type { BenchDatabase } from './database.js';
import { ROOT, startServer } from './processes.js';

export const PROFILES = join(ROOT, 'bench/results/profiles');
const say = (line: string) => console.warn(line);

/**
 * The service, and beside it the floor or the baseline build. Profiles go to one directory per
 * server (under tsx the module-loader thread writes a profile of its own), where each pass's
 * processes add theirs: emptyProfiles empties them once, before the first.
 */
export async function startServers(db: BenchDatabase, secret: string, serviceEnv: Record<string, string>) {
  const profileArgs = (name: string) =>
    config.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(PROFILES, name)}`] : [];
  const service = await startServer('service', [...profileArgs('service'), config.serviceMain], {
    ...serviceEnv,
    AUTH_JWT_SECRET: secret,
    ...db.serviceEnv,
    ...config.serviceEnv,
  });
  const bare = !config.bare
    ? undefined
    : config.baselineMain
      ? await startServer('baseline', [...profileArgs('baseline'), config.baselineMain], {
          ...serviceEnv,
          AUTH_JWT_SECRET: secret,
          ...db.serviceEnv,
          ...config.baselineEnv,
        })
      : await startServer('bare', [...profileArgs('bare'), '--import', 'tsx', 'bench/bare-server.ts'], {
          PORT: '0',
          AUTH_JWT_SECRET: secret,
          BARE_POOL_SIZE: '10',
          BARE_PREPARE: config.barePrepare ? '1' : '0',
          ...db.bareEnv(),
        });
  say(`service ${service.url} (pid ${service.pid}), bare ${bare?.url ?? 'off'}`);
  return { service, bare, stop: () => Promise.all([service.stop(), bare?.stop()]) };
}

/** A run's profiles replace the last run's. */
export function emptyProfiles(): void {
  for (const dir of ['service', 'bare', 'baseline'])
    rmSync(join(PROFILES, dir), { recursive: true, force: true });
}

/** The largest profile of the directory: the main thread's. */
export function mainThreadProfile(dir: string): string {
  const files = readdirSync(dir).filter((file) => file.endsWith('.cpuprofile'));
  const largest = files.sort((a, b) => statSync(join(dir, b)).size - statSync(join(dir, a)).size)[0];
  if (!largest) throw new Error(`no profile in ${dir}`);
  return join(dir, largest);
}
