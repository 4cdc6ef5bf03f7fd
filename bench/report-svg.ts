import type { Report, SideResult } from './report.js';

const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Two panels of grouped horizontal bars: req/s and p99, service against the floor. */
export function svg(report: Report): string {
  const width = 820;
  const labelWidth = 230;
  const barArea = width - labelWidth - 160;
  const colours = { service: '#2f6fdf', bare: '#a0a7b4' };
  const parts: string[] = [];
  let y = 78;
  const panel = (title: string, pick: (r: SideResult) => number, unit: string) => {
    parts.push(`<text x="20" y="${y}" class="h">${xml(title)}</text>`);
    y += 14;
    const max = Math.max(1, ...report.scenarios.flatMap((s) => [pick(s.service), s.bare ? pick(s.bare) : 0]));
    for (const s of report.scenarios) {
      parts.push(
        `<text x="${labelWidth - 10}" y="${y + 19}" class="l" text-anchor="end">${xml(s.title)}</text>`,
      );
      for (const [side, result] of [
        ['service', s.service],
        ['bare', s.bare],
      ] as const) {
        if (result) {
          const value = pick(result);
          const w = Math.max(1, (value / max) * barArea);
          const ratio = side === 'service' && s.bare ? ` (${(value / pick(s.bare)).toFixed(2)}x floor)` : '';
          parts.push(
            `<rect x="${labelWidth}" y="${y}" width="${w.toFixed(1)}" height="13" fill="${colours[side]}"/>`,
            `<text x="${(labelWidth + w + 6).toFixed(1)}" y="${y + 11}" class="v">${value.toFixed(0)} ${unit}${ratio}</text>`,
          );
        }
        y += 15;
      }
      y += 10;
    }
    y += 22;
  };
  panel('Requests per second (higher is better)', (r) => r.rps, 'req/s');
  panel('p99 latency (lower is better)', (r) => r.p99, 'ms');
  const header = [
    `<text x="20" y="24" class="t">${xml(`Service vs the floor — ${report.meta.database}`)}</text>`,
    `<rect x="20" y="34" width="12" height="12" fill="${colours.service}"/><text x="38" y="44" class="l">service</text>`,
    `<rect x="110" y="34" width="12" height="12" fill="${colours.bare}"/><text x="128" y="44" class="l">floor</text>`,
    `<text x="${width - 20}" y="44" class="l" text-anchor="end">${xml(`${report.meta.date.slice(0, 10)}, ${report.meta.connections} connections, ${report.meta.duration} s each`)}</text>`,
  ];
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${y}" viewBox="0 0 ${width} ${y}" font-family="system-ui, sans-serif">`,
    `<title>${xml(`Requests per second and p99 latency per scenario, service against the floor (${report.meta.database})`)}</title>`,
    '<style>.t{font-size:15px;font-weight:600}.h{font-size:13px;font-weight:600}.l{font-size:12px}.v{font-size:11px;fill:#333}</style>',
    `<rect width="${width}" height="${y}" fill="#fff"/>`,
    ...header,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}

const STYLE =
  '<style>.t{font-size:15px;font-weight:600}.h{font-size:13px;font-weight:600}.l{font-size:12px}.v{font-size:11px;fill:#333}.a{stroke:#999;stroke-width:1}.g{stroke:#eee;stroke-width:1}</style>';

/**
 * Req/s of each filtered page against the tenant's size, service and floor: both axes logarithmic,
 * so that a cost growing with the tenant shows as a slope, and a flat line means it does not.
 */
export function sizesSvg(report: Report): string {
  const [width, height] = [820, 460];
  const box = { left: 80, right: width - 190, top: 60, bottom: height - 60 };
  const points = report.sweep;
  const sizes = [...new Set(points.map((p) => p.size))].sort((a, b) => a - b);
  const values = points.flatMap((p) => [p.service.rps, p.bare?.rps ?? Number.NaN]).filter((v) => v > 0);
  const decade = (v: number, round: (x: number) => number) => 10 ** round(Math.log10(v));
  const [yMin, yMax] = [
    decade(Math.min(...values, 10), Math.floor),
    decade(Math.max(...values, 10), Math.ceil),
  ];
  const [xMin, xMax] = [Math.min(...sizes), Math.max(...sizes)];
  const x = (size: number) =>
    xMax === xMin
      ? (box.left + box.right) / 2
      : box.left +
        ((Math.log10(size) - Math.log10(xMin)) / (Math.log10(xMax) - Math.log10(xMin))) *
          (box.right - box.left);
  const y = (rps: number) =>
    box.bottom -
    ((Math.log10(rps) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin))) * (box.bottom - box.top);
  const parts: string[] = [];
  for (let v = yMin; v <= yMax; v *= 10)
    parts.push(
      `<line x1="${box.left}" x2="${box.right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" class="g"/>`,
      `<text x="${box.left - 8}" y="${(y(v) + 4).toFixed(1)}" class="l" text-anchor="end">${v.toLocaleString('en')}</text>`,
    );
  for (const size of sizes)
    parts.push(
      `<text x="${x(size).toFixed(1)}" y="${box.bottom + 18}" class="l" text-anchor="middle">${size.toLocaleString('en')}</text>`,
    );
  parts.push(
    `<line x1="${box.left}" x2="${box.right}" y1="${box.bottom}" y2="${box.bottom}" class="a"/>`,
    `<line x1="${box.left}" x2="${box.left}" y1="${box.top}" y2="${box.bottom}" class="a"/>`,
    `<text x="${(box.left + box.right) / 2}" y="${height - 18}" class="l" text-anchor="middle">memberships in the tenant</text>`,
    `<text x="18" y="${(box.top + box.bottom) / 2}" class="l" transform="rotate(-90 18 ${(box.top + box.bottom) / 2})" text-anchor="middle">req/s</text>`,
  );
  const colours = { service: '#2f6fdf', bare: '#a0a7b4' };
  const dashes = ['', '6 4', '2 3'];
  const names = [...new Set(points.map((p) => p.name))];
  for (const [i, name] of names.entries()) {
    for (const side of ['service', 'bare'] as const) {
      const line = points
        .filter((p) => p.name === name)
        .sort((a, b) => a.size - b.size)
        .map((p) => ({ size: p.size, rps: p[side]?.rps ?? 0 }))
        .filter((p) => p.rps > 0);
      const last = line.at(-1);
      if (!last) continue;
      const path = line
        .map((p, k) => `${k === 0 ? 'M' : 'L'}${x(p.size).toFixed(1)},${y(p.rps).toFixed(1)}`)
        .join(' ');
      parts.push(
        `<path d="${path}" fill="none" stroke="${colours[side]}" stroke-width="2" stroke-dasharray="${dashes[i % dashes.length]}"/>`,
        ...line.map(
          (p) =>
            `<circle cx="${x(p.size).toFixed(1)}" cy="${y(p.rps).toFixed(1)}" r="3" fill="${colours[side]}"/>`,
        ),
        `<text x="${box.right + 8}" y="${(y(last.rps) + 4).toFixed(1)}" class="v">${xml(`${name}, ${side === 'bare' ? 'floor' : side}: ${last.rps.toFixed(0)}`)}</text>`,
      );
    }
  }
  const title = `Filtered list pages: req/s against the tenant's size — ${report.meta.database}`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif">`,
    `<title>${xml(`${title}; flat is the goal`)}</title>`,
    STYLE,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="20" y="24" class="t">${xml(title)}</text>`,
    `<text x="20" y="44" class="l">${xml(`blue: service, grey: floor; solid: ${names[0] ?? ''}, dashed: ${names[1] ?? ''}. Log scales: flat is the goal.`)}</text>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}
