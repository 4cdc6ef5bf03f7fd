import { posix } from 'node:path';

/*
 * Just enough of the Dockerfile and .dockerignore syntax to read this repository's own files, so
 * that image-steps.test.ts performs what the Dockerfile says rather than a copy of it that could
 * drift. Unsupported forms (heredocs, JSON-form COPY, ENV without "=") are refused, not guessed.
 */

export type Instruction = { keyword: string; args: string };
export type Stage = { name: string; from: string; instructions: Instruction[] };
export type Copy = { from: string | undefined; sources: string[]; dest: string };

/** The stages in order, each with its instructions; line continuations joined, comments dropped. */
export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    // Docker drops comment lines even inside a continued instruction.
    if (line.startsWith('#') || (line === '' && pending === '')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const full = `${pending}${line}`.trim();
    pending = '';
    if (full === '') continue;
    const [keyword = '', ...rest] = full.split(/\s+/);
    const args = full.slice(keyword.length).trim();
    if (args.startsWith('<<')) throw new Error(`heredocs are not supported: ${full}`);
    if (keyword.toUpperCase() === 'FROM') {
      const as = rest.findIndex((word) => word.toUpperCase() === 'AS');
      const from = rest.find((word) => !word.startsWith('--')) ?? '';
      stages.push({
        name: as >= 0 ? (rest[as + 1] ?? '').toLowerCase() : String(stages.length),
        from,
        instructions: [],
      });
    } else {
      stages.at(-1)?.instructions.push({ keyword: keyword.toUpperCase(), args });
    }
  }
  return stages;
}

export const instructionsOf = (stage: Stage, keyword: string) =>
  stage.instructions.filter((instruction) => instruction.keyword === keyword).map(({ args }) => args);

/** The stage and the stages it is built FROM, the oldest first: what it inherits WORKDIR and ENV from. */
function lineage(stages: Stage[], stage: Stage): Stage[] {
  const parent = stages.find((candidate) => candidate.name === stage.from.toLowerCase());
  return parent && parent !== stage ? [...lineage(stages, parent), stage] : [stage];
}

export function workdirOf(stages: Stage[], stage: Stage): string {
  let workdir = '/';
  for (const step of lineage(stages, stage))
    for (const dir of instructionsOf(step, 'WORKDIR')) workdir = posix.resolve(workdir, dir);
  return workdir;
}

export function envOf(stages: Stage[], stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const step of lineage(stages, stage))
    for (const args of instructionsOf(step, 'ENV'))
      for (const pair of args.match(/[A-Za-z_][A-Za-z0-9_]*=(?:"[^"]*"|'[^']*'|\S*)/g) ?? []) {
        const eq = pair.indexOf('=');
        env[pair.slice(0, eq)] = pair.slice(eq + 1).replace(/^(["'])(.*)\1$/, '$2');
      }
  return env;
}

export function copiesOf(stage: Stage): Copy[] {
  return instructionsOf(stage, 'COPY').map((args) => {
    if (args.startsWith('[')) throw new Error(`JSON-form COPY is not supported: ${args}`);
    const parts = args.split(/\s+/);
    const flags = parts.filter((part) => part.startsWith('--'));
    const paths = parts.filter((part) => !part.startsWith('--'));
    const dest = paths.pop();
    if (!dest || paths.length === 0) throw new Error(`COPY needs a source and a destination: ${args}`);
    const from = flags.find((flag) => flag.startsWith('--from='))?.slice('--from='.length);
    return { from, sources: paths, dest };
  });
}

/** An exec-form (JSON array) command: what CMD, ENTRYPOINT and HEALTHCHECK CMD run without a shell. */
export function execForm(args: string): string[] {
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((arg) => typeof arg === 'string'))
    throw new Error(`not an exec-form command: ${args}`);
  return parsed;
}

/** The command of `HEALTHCHECK [--option=value ...] CMD [...]`. */
export function healthcheckCommand(args: string): string[] {
  const match = /^(?:--\S+\s+)*CMD\s+(\[.*\])$/s.exec(args);
  if (!match?.[1]) throw new Error(`HEALTHCHECK without an exec-form CMD: ${args}`);
  return execForm(match[1]);
}

/**
 * Whether .dockerignore keeps `path` (relative to the context) out of the build context: the last
 * matching pattern decides ("!" lets back in), and a pattern that matches a directory leaves out
 * everything below it.
 */
export function isIgnored(path: string, dockerignore: string): boolean {
  let ignored = false;
  const ancestors = path.split('/').map((_, index, parts) => parts.slice(0, index + 1).join('/'));
  for (const raw of dockerignore.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const negated = line.startsWith('!');
    const pattern = posix.normalize((negated ? line.slice(1) : line).replace(/^\/+/, ''));
    const regex = new RegExp(
      `^${pattern
        .split(/(\*\*\/|\*\*|\*|\?)/)
        .map((part) =>
          part === '**/'
            ? '(?:.*/)?'
            : part === '**'
              ? '.*'
              : part === '*'
                ? '[^/]*'
                : part === '?'
                  ? '[^/]'
                  : part.replace(/[.+^${}()|[\]\\]/g, '\\$&'),
        )
        .join('')}$`,
    );
    if (ancestors.some((ancestor) => regex.test(ancestor))) ignored = !negated;
  }
  return ignored;
}
