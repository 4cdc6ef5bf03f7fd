/**
 * Reads a V8 .cpuprofile (node --cpu-prof) and tells where the time went: the functions with the
 * most self time, and per package the time spent in it (self) and under it (inclusive, once per
 * sample however deep the package recurses). Idle time is left out of every percentage.
 * Usage: node --import tsx bench/profile.ts <file.cpuprofile> [top]
 */
import { readFileSync } from 'node:fs';

type CallFrame = { functionName: string; url: string; lineNumber: number };
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[] };
type CpuProfile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };

/** node_modules/<package> (scoped too), the service's own code, Node's core, or V8's pseudo-frames. */
export function packageOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (module?.[1]) return module[1];
  if (url.includes('/server/dist/') || url.includes('/server/src/')) return 'service code';
  if (url.includes('/contract/dist/')) return '@tms/contract';
  if (url.includes('/bench/')) return 'bench code';
  if (url.startsWith('node:')) return 'node core';
  if (functionName.startsWith('(')) return functionName;
  return url === '' ? '(native)' : url;
}

const shortUrl = (url: string) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/^.*node_modules\//, '')
    .replace(/^.*\/work\/main\//, '');

export function summarise(file: string, top = 25): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const packagesOnStack = new Map<number, Set<string>>();
  const stackPackages = (id: number): Set<string> => {
    const known = packagesOnStack.get(id);
    if (known) return known;
    const node = byId.get(id);
    const up = parent.get(id);
    const set = new Set(up === undefined ? [] : stackPackages(up));
    if (node) set.add(packageOf(node.callFrame));
    packagesOnStack.set(id, set);
    return set;
  };

  const selfByFunction = new Map<string, number>();
  const selfByPackage = new Map<string, number>();
  const inclusiveByPackage = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);
  let busy = 0;
  let idle = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    const node = byId.get(id);
    if (!node) return;
    if (node.callFrame.functionName === '(idle)') {
      idle += us;
      return;
    }
    busy += us;
    const { functionName, url, lineNumber } = node.callFrame;
    add(selfByFunction, `${functionName || '(anonymous)'} ${shortUrl(url)}:${lineNumber + 1}`, us);
    add(selfByPackage, packageOf(node.callFrame), us);
    for (const pkg of stackPackages(id)) add(inclusiveByPackage, pkg, us);
  });

  const share = (us: number) => `${((us / busy) * 100).toFixed(1)} %`;
  const ms = (us: number) => (us / 1000).toFixed(0);
  const sorted = (map: Map<string, number>) => [...map.entries()].sort((a, b) => b[1] - a[1]);
  const lines = [
    `Profile ${shortUrl(file)}: ${ms(busy)} ms busy, ${ms(idle)} ms idle (${((busy / (busy + idle)) * 100).toFixed(0)} % busy).`,
    '',
    `Top ${top} functions by self time (share of busy time):`,
    '',
    '| self ms | share | function |',
    '|---:|---:|---|',
    ...sorted(selfByFunction)
      .slice(0, top)
      .map(([key, us]) => `| ${ms(us)} | ${share(us)} | \`${key}\` |`),
    '',
    'Per package: self time, and inclusive time (samples with the package anywhere on the stack):',
    '',
    '| package | self | inclusive |',
    '|---|---:|---:|',
    ...sorted(inclusiveByPackage)
      .filter(([, us]) => us / busy >= 0.005)
      .map(([pkg, us]) => `| ${pkg} | ${share(selfByPackage.get(pkg) ?? 0)} | ${share(us)} |`),
  ];
  return `${lines.join('\n')}\n`;
}

if (process.argv[1]?.endsWith('profile.ts') && process.argv[2]) {
  process.stdout.write(summarise(process.argv[2], Number(process.argv[3] ?? 25)));
}
