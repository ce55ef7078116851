import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, release, totalmem } from 'node:os';
import { join } from 'node:path';
import type { LoadResult } from './load.js';
import type { BenchSettings } from './options.js';
import { describeProfile, type ProfileSummary } from './profile.js';
import { PROJECT_ROOT } from './processes.js';

export interface Row {
  id: string;
  label: string;
  result: LoadResult;
  /** The row id of this row's baseline (measured in the same run), for REPORT.md and the chart. */
  baseline?: string;
  /** What the rps column counts, when not HTTP requests (e.g. 'msgs/s', 'deliveries/s'). */
  unit?: string;
  /** Where the app's time went under this row's load (a profile taken outside the measured windows). */
  profile?: ProfileSummary | null;
}

export interface Ratio {
  label: string;
  /** Row ids: rps of `of` divided by rps of `to`. */
  of: string;
  to: string;
  value: number;
  /**
   * Server CPU per request of `to` divided by that of `of`: the rps ratio the two would show if
   * each had the machine to itself. Robust to other load on the machine; null without CPU figures.
   */
  costValue: number | null;
}

export interface Target {
  label: string;
  pass: boolean;
  measured: string;
  /** The row this target is about (REPORT.md puts PASS/MISS on that row). */
  row?: string;
  /** For the chart: a ratio-to-baseline target (e.g. 0.6) or a p99 limit in ms. */
  ratio?: number;
  p99Ms?: number;
}

export interface BenchReport {
  name: string;
  title: string;
  settings: BenchSettings;
  rows: Row[];
  ratios: Ratio[];
  targets: Target[];
  notes: string[];
}

/** bench/results, or BENCH_RESULTS_DIR (the profiling pass of `npm run bench` writes to bench/results/profiles). */
export function resultsDir(): string {
  return process.env.BENCH_RESULTS_DIR ?? join(PROJECT_ROOT, 'bench', 'results');
}

export function machine() {
  return {
    nproc: availableParallelism(),
    cpu: cpus()[0]?.model ?? 'unknown',
    memGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    kernel: release(),
  };
}

export function rowById(rows: Row[], id: string): Row {
  const row = rows.find((r) => r.id === id);
  if (!row) throw new Error(`no row ${id}`);
  return row;
}

/** rps(of) / rps(to), and the same comparison by server CPU per request. */
export function ratio(rows: Row[], label: string, of: string, to: string): Ratio {
  const a = rowById(rows, of).result;
  const b = rowById(rows, to).result;
  const round3 = (n: number) => Math.round(n * 1000) / 1000;
  const costValue = a.serverUsPerRequest && b.serverUsPerRequest ? round3(b.serverUsPerRequest / a.serverUsPerRequest) : null;
  return { label, of, to, value: round3(a.rps / b.rps), costValue };
}

/** A row's figures are only usable when every response was a 2xx and no connection failed. */
export function clean(row: Row): boolean {
  return row.result.non2xx === 0 && row.result.errors === 0;
}

/** Prints the table, ratios and PASS/MISS lines, and writes the figures to bench/results/<name>.json. */
export function reportResults(report: BenchReport): string {
  const m = machine();
  const lines: string[] = [];
  lines.push(`${report.title}`);
  lines.push(
    `${report.settings.connections} connections, ${report.settings.duration} s measured after ${report.settings.warmup} s warm-up per target; ` +
      `${m.nproc} CPUs (${m.cpu}), node ${m.node}`,
  );
  lines.push('');
  const header = ['target', 'rps', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'server CPU', 'server µs/req', 'autocannon CPU', 'other CPU'];
  const body = report.rows.map((r) => [
    r.label,
    String(r.result.rps),
    String(r.result.p50),
    String(r.result.p99),
    String(r.result.non2xx),
    String(r.result.errors),
    r.result.serverCpu === null ? '-' : `${r.result.serverCpu.toFixed(2)} cores`,
    r.result.serverUsPerRequest === null ? '-' : String(r.result.serverUsPerRequest),
    `${r.result.loadCpu.toFixed(2)} cores`,
    r.result.otherCpu === null ? '-' : `${r.result.otherCpu.toFixed(2)} cores`,
  ]);
  lines.push(...table([header, ...body]));
  lines.push('');
  lines.push(
    ...table([
      ['ratio', 'by rps', 'by server µs/req'],
      ...report.ratios.map((r) => [r.label, `${r.value.toFixed(3)}×`, r.costValue === null ? '-' : `${r.costValue.toFixed(3)}×`]),
    ]),
  );
  lines.push('');
  for (const t of report.targets) lines.push(`${t.pass ? 'PASS' : 'MISS'}  ${t.label}  (measured ${t.measured})`);
  for (const row of report.rows) if (row.profile) lines.push(`profile of ${row.label}: ${describeProfile(row.profile)}`);
  for (const note of report.notes) lines.push(`note: ${note}`);
  const disturbed = report.rows.filter((r) => (r.result.otherCpu ?? 0) > 0.1);
  if (disturbed.length > 0) {
    lines.push(`WARNING: other processes used CPU during ${disturbed.map((r) => r.label).join(', ')}; re-run on a quiet machine`);
  }
  const text = lines.join('\n');
  console.log(`\n${text}\n`);

  const dir = resultsDir();
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${report.name}.json`);
  writeFileSync(file, JSON.stringify({ ...report, machine: m, measuredAt: new Date().toISOString() }, null, 2) + '\n');
  console.log(`figures written to ${file}`);
  return text;
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const format = (r: string[]) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
  return [format(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(format)];
}
