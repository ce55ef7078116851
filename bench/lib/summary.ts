/**
 * Turns the bench/results/<name>.json files of one `npm run bench` into bench/results/REPORT.md (one
 * table of every measured row, the targets, the notes) and bench/results/chart.svg (hand-written
 * SVG: ratio to baseline per endpoint with its target, and p99 per endpoint with its limit).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './processes.js';
import type { BenchReport, Ratio, Row, Target } from './report.js';

type Saved = BenchReport & { machine: { nproc: number; cpu: string; memGiB: number; node: string; kernel: string }; measuredAt: string };

const RESULTS = join(PROJECT_ROOT, 'bench', 'results');
/** Where the profiling pass of `npm run bench` writes (its app ran with --inspect: figures not comparable). */
export const PROFILE_RESULTS = join(RESULTS, 'profiles');

export interface SummaryInput {
  /** Benchmark names in report order (quote, orders, tracking, webhooks). */
  names: string[];
  /** Only results written at or after this time count (older files are reported as missing). */
  since: Date;
}

/** One row of the summary: a measured row with its baseline ratio and its targets. */
interface Line {
  bench: string;
  row: Row;
  ratio: Ratio | null;
  targets: Target[];
}

export function writeSummary(input: SummaryInput): { report: string; chart: string } {
  const loaded: Saved[] = [];
  const missing: string[] = [];
  for (const name of input.names) {
    const file = join(RESULTS, `${name}.json`);
    const saved = readSaved(file, input.since);
    if (saved) loaded.push(withProfiles(saved, readSaved(join(PROFILE_RESULTS, `${name}.json`), input.since)));
    else missing.push(name);
  }
  const lines: Line[] = loaded.flatMap((b) =>
    b.rows.map((row) => ({
      bench: b.name,
      row,
      ratio: row.baseline ? (b.ratios.find((r) => r.of === row.id && r.to === row.baseline) ?? null) : null,
      targets: b.targets.filter((t) => t.row === row.id),
    })),
  );

  const report = join(RESULTS, 'REPORT.md');
  const chart = join(RESULTS, 'chart.svg');
  writeFileSync(report, markdown(loaded, lines, missing));
  writeFileSync(chart, svg(lines));
  spliceGrowthSection();
  return { report, chart };
}

const GROWTH_START = '<!-- growth: written by npm run bench:growth (its copy: bench/results/GROWTH.md); npm run bench keeps it -->';
const GROWTH_END = '<!-- /growth -->';

/**
 * Puts bench/results/GROWTH.md (written by bench/growth.ts, which takes far longer than the other
 * benchmarks and runs on its own) into REPORT.md between its markers, or at the end: rewriting the
 * report for the other benchmarks keeps the last growth figures.
 */
export function spliceGrowthSection(): void {
  const fragment = join(RESULTS, 'GROWTH.md');
  if (!existsSync(fragment)) return;
  const report = join(RESULTS, 'REPORT.md');
  const section = `${GROWTH_START}\n${readFileSync(fragment, 'utf8').trim()}\n${GROWTH_END}`;
  const current = existsSync(report) ? readFileSync(report, 'utf8') : '# Benchmark report\n';
  const start = current.indexOf(GROWTH_START);
  const end = current.indexOf(GROWTH_END);
  const next = start >= 0 && end > start ? current.slice(0, start) + section + current.slice(end + GROWTH_END.length) : `${current.trimEnd()}\n\n${section}\n`;
  writeFileSync(report, next);
}

function readSaved(file: string, since: Date): Saved | null {
  const saved = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Saved) : null;
  return saved && new Date(saved.measuredAt) >= since ? saved : null;
}

/** The measured rows, each with the profile of the same row from the profiling pass (when it has none of its own). */
function withProfiles(measured: Saved, profiled: Saved | null): Saved {
  if (!profiled) return measured;
  const rows = measured.rows.map((row) => {
    const profile = row.profile ?? profiled.rows.find((p) => p.id === row.id)?.profile;
    return profile ? { ...row, profile } : row;
  });
  return { ...measured, rows };
}

// --- REPORT.md -------------------------------------------------------------------------------

const times = (n: number | null | undefined) => (n === null || n === undefined ? '–' : `${n.toFixed(2)}×`);

function markdown(loaded: Saved[], lines: Line[], missing: string[]): string {
  const m = loaded[0]?.machine;
  const out: string[] = [];
  out.push('# Benchmark report', '');
  out.push(`Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC. How to read it: [bench/README.md](../README.md).`, '');
  if (m) out.push(`Machine: ${m.nproc} CPUs (${m.cpu}), ${m.memGiB} GiB, Linux ${m.kernel}, Node ${m.node}.`, '');
  out.push(
    'Every figure sits next to a baseline measured in the same run on the same machine. Each server runs in its own process; ' +
      'the load generator in another. **server µs/req** (server CPU time per request or message) is the figure least disturbed by other ' +
      'work on the machine; the ratio "by server µs/req" is the rps ratio the two servers would show with the machine to themselves.',
    '',
  );
  out.push('![Ratio to baseline and p99 per endpoint](chart.svg)', '');
  out.push(
    '| benchmark | measured row | rps / msgs/s | p50 ms | p99 ms | server µs/req | baseline | ratio by rps | ratio by server µs/req | other CPU | target | result |',
    '|---|---|---:|---:|---:|---:|---|---:|---:|---:|---|---|',
  );
  for (const line of lines) {
    const r = line.row.result;
    const bench = loaded.find((b) => b.name === line.bench)!;
    const baselineLabel = line.row.baseline ? (bench.rows.find((x) => x.id === line.row.baseline)?.label ?? line.row.baseline) : null;
    const isBaseline = bench.rows.some((x) => x.baseline === line.row.id);
    const dirty = r.non2xx > 0 || r.errors > 0 ? ` ⚠ ${r.non2xx} non-2xx, ${r.errors} errors` : '';
    out.push(
      `| ${line.bench} | ${line.row.label}${dirty} | ${r.rps}${line.row.unit ? ` ${line.row.unit}` : ''} | ${r.p50} | ${r.p99} | ${r.serverUsPerRequest ?? '–'} | ` +
        `${baselineLabel ?? (isBaseline ? '*(is the baseline)*' : '–')} | ${times(line.ratio?.value)} | ${times(line.ratio?.costValue)} | ` +
        `${r.otherCpu === null ? '–' : `${r.otherCpu.toFixed(2)} cores`} | ${line.targets.map((t) => t.label).join('<br>') || '–'} | ` +
        `${line.targets.map((t) => `**${t.pass ? 'PASS' : 'MISS'}** (${t.measured})`).join('<br>') || '–'} |`,
    );
  }
  out.push('');
  if (missing.length > 0) out.push(`**Not in this report** (failed or not run): ${missing.join(', ')}.`, '');

  out.push('## Targets', '');
  for (const b of loaded) for (const t of b.targets) out.push(`- ${t.pass ? 'PASS' : 'MISS'} — ${b.name}: ${t.label} (measured ${t.measured})`);
  out.push('');
  const disturbed = lines.filter((l) => (l.row.result.otherCpu ?? 0) > 0.1);
  if (disturbed.length > 0) {
    out.push(
      `Other CPU above 0.1 core during ${disturbed.length} of ${lines.length} rows: other work shared the machine, so rps and latency ` +
        'are disturbed there; compare server µs/req.',
      '',
    );
  }

  out.push('## Per benchmark', '');
  for (const b of loaded) {
    out.push(`### ${b.title} (\`bench/${b.name}.ts\`)`, '');
    out.push(`Measured ${b.measuredAt}; ${b.settings.connections} connections/sockets, ${b.settings.duration} s measured after ${b.settings.warmup} s warm-up per row.`, '');
    if (b.ratios.length > 0) {
      out.push('| ratio | by rps | by server µs/req |', '|---|---:|---:|');
      for (const r of b.ratios) out.push(`| ${r.label} | ${times(r.value)} | ${times(r.costValue)} |`);
      out.push('');
    }
    out.push('| row | server CPU | load generator CPU | other CPU |', '|---|---:|---:|---:|');
    for (const row of b.rows) {
      const r = row.result;
      out.push(`| ${row.label} | ${r.serverCpu === null ? '–' : `${r.serverCpu.toFixed(2)} cores`} | ${r.loadCpu.toFixed(2)} cores | ${r.otherCpu === null ? '–' : `${r.otherCpu.toFixed(2)} cores`} |`);
    }
    out.push('');
    const profiled = b.rows.filter((row) => row.profile);
    if (profiled.length > 0) {
      out.push('Where the time goes (self time of the app process, idle excluded; sampled under the same load in the profiling pass, whose app ran with --inspect, so its figures are not the measured ones):', '');
      out.push('| row | busy sampled | top modules | top functions |', '|---|---:|---|---|');
      const list = (items: Array<{ name: string; pct: number }>) => items.map((i) => `${esc(i.name)} ${i.pct}%`).join('<br>');
      for (const row of profiled) out.push(`| ${row.label} | ${row.profile!.busyMs} ms | ${list(row.profile!.modules)} | ${list(row.profile!.functions)} |`);
      out.push('');
    }
    for (const note of b.notes) out.push(`- ${note}`);
    out.push('');
  }
  return out.join('\n');
}

// --- chart.svg -------------------------------------------------------------------------------

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const COLORS = { rps: '#4e79a7', cost: '#a0cbe8', p99: '#f28e2b', target: '#d62728', grid: '#ddd', text: '#222' };

function svg(lines: Line[]): string {
  const withBaseline = lines.filter((l) => l.ratio);
  const measured = lines.filter((l) => l.ratio || l.targets.length > 0);
  const width = 960;
  const labelWidth = 330;
  const plotWidth = width - labelWidth - 90;
  const barGroup = 34;
  const parts: string[] = [];
  let y = 30;
  parts.push(`<text x="${width / 2}" y="${y}" text-anchor="middle" font-size="17" font-weight="bold">Benchmarks: ratio to the same-run baseline, and p99 latency</text>`);
  y += 20;

  // Panel 1: ratio to baseline (by rps, by server µs/req), target as a red tick.
  const maxRatio = Math.max(1.2, ...withBaseline.flatMap((l) => [l.ratio!.value, l.ratio!.costValue ?? 0]));
  const xr = (v: number) => labelWidth + (v / maxRatio) * plotWidth;
  y += 24;
  parts.push(`<text x="10" y="${y}" font-size="14" font-weight="bold">Ratio to baseline (1.0× = as fast as the baseline; red line = target)</text>`);
  y += 12;
  const top1 = y;
  const height1 = withBaseline.length * barGroup;
  for (let v = 0; v <= maxRatio + 1e-9; v += 0.2) {
    parts.push(`<line x1="${xr(v)}" y1="${top1}" x2="${xr(v)}" y2="${top1 + height1}" stroke="${COLORS.grid}"/>`);
    parts.push(`<text x="${xr(v)}" y="${top1 + height1 + 14}" text-anchor="middle" font-size="11">${v.toFixed(1)}×</text>`);
  }
  withBaseline.forEach((l, i) => {
    const gy = top1 + i * barGroup;
    const { value, costValue } = l.ratio!;
    parts.push(`<text x="${labelWidth - 8}" y="${gy + 19}" text-anchor="end" font-size="12">${esc(`${l.bench}: ${short(l.row.label)}`)}</text>`);
    parts.push(bar(xr(0), gy + 4, xr(value) - xr(0), 12, COLORS.rps, `${value.toFixed(2)}× by ${l.row.unit ?? 'rps'}`));
    if (costValue !== null) parts.push(bar(xr(0), gy + 17, xr(costValue) - xr(0), 12, COLORS.cost, `${costValue.toFixed(2)}× by server µs`));
    const target = l.targets.find((t) => t.ratio !== undefined);
    if (target) parts.push(`<line x1="${xr(target.ratio!)}" y1="${gy + 1}" x2="${xr(target.ratio!)}" y2="${gy + barGroup - 3}" stroke="${COLORS.target}" stroke-width="3"/>`);
  });
  y = top1 + height1 + 26;
  parts.push(legend(labelWidth, y, [
    [COLORS.rps, 'by rps (msgs/s)'],
    [COLORS.cost, 'by server CPU per request'],
    [COLORS.target, 'target'],
  ]));
  y += 30;

  // Panel 2: p99 per endpoint on a log scale, limit as a red tick.
  parts.push(`<text x="10" y="${y}" font-size="14" font-weight="bold">p99 latency, ms (log scale; red line = limit)</text>`);
  y += 12;
  const top2 = y;
  const rowH = 24;
  const height2 = measured.length * rowH;
  const decades = [1, 10, 100, 1000, 10000];
  const maxMs = decades.find((d) => d >= Math.max(100, ...measured.map((l) => l.row.result.p99))) ?? 10000;
  const xl = (ms: number) => labelWidth + (Math.log10(Math.max(ms, 0.1)) - Math.log10(0.1)) / (Math.log10(maxMs) - Math.log10(0.1)) * plotWidth;
  for (const d of [0.1, ...decades.filter((d) => d <= maxMs)]) {
    parts.push(`<line x1="${xl(d)}" y1="${top2}" x2="${xl(d)}" y2="${top2 + height2}" stroke="${COLORS.grid}"/>`);
    parts.push(`<text x="${xl(d)}" y="${top2 + height2 + 14}" text-anchor="middle" font-size="11">${d} ms</text>`);
  }
  measured.forEach((l, i) => {
    const gy = top2 + i * rowH;
    const p99 = l.row.result.p99;
    parts.push(`<text x="${labelWidth - 8}" y="${gy + 16}" text-anchor="end" font-size="12">${esc(`${l.bench}: ${short(l.row.label)}`)}</text>`);
    parts.push(bar(xl(0.1), gy + 5, xl(p99) - xl(0.1), 14, COLORS.p99, `${p99} ms`));
    const limit = l.targets.find((t) => t.p99Ms !== undefined);
    if (limit) parts.push(`<line x1="${xl(limit.p99Ms!)}" y1="${gy + 1}" x2="${xl(limit.p99Ms!)}" y2="${gy + rowH - 1}" stroke="${COLORS.target}" stroke-width="3"/>`);
  });
  y = top2 + height2 + 30;

  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${y}" viewBox="0 0 ${width} ${y}" font-family="Helvetica, Arial, sans-serif" fill="${COLORS.text}">\n` +
    `<rect width="100%" height="100%" fill="#fff"/>\n${parts.join('\n')}\n</svg>\n`
  );
}

function bar(x: number, y: number, w: number, h: number, color: string, label: string): string {
  const width = Math.max(1, w);
  return `<rect x="${x.toFixed(1)}" y="${y}" width="${width.toFixed(1)}" height="${h}" fill="${color}"/><text x="${(x + width + 4).toFixed(1)}" y="${y + h - 2}" font-size="11">${esc(label)}</text>`;
}

function legend(x: number, y: number, items: Array<[string, string]>): string {
  return items
    .map(([color, text], i) => `<rect x="${x + i * 220}" y="${y - 10}" width="12" height="12" fill="${color}"/><text x="${x + i * 220 + 18}" y="${y}" font-size="12">${esc(text)}</text>`)
    .join('');
}

/** Row labels, shortened for the chart's left margin. */
function short(label: string): string {
  const cut = label.replace(/\s*\(.*\)$/, '');
  return cut.length > 46 ? `${cut.slice(0, 45)}…` : cut;
}
