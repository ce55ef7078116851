/**
 * `npm run bench`: runs every benchmark one after another (quote, orders, tracking, subscriptions,
 * webhooks, then any other bench/*.ts), each in its own process with the same arguments (e.g. `-- --duration 20`),
 * then writes bench/results/REPORT.md and bench/results/chart.svg from the figures of this run.
 * A benchmark that crashes makes the exit code non-zero; a missed target does not (benchmarks
 * report, they do not assert). `--report-only` rewrites REPORT.md and chart.svg from the
 * bench/results/*.json already there, without running anything.
 *
 * After the measured pass, a shorter profiling pass runs every benchmark again with BENCH_PROFILE=1
 * (the app under --inspect, which slows it, hence not in the measured pass) and writes to
 * bench/results/profiles/; REPORT.md takes each app row's top CPU frames from it. `--no-profile`
 * skips that pass.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './lib/processes.js';
import { PROFILE_RESULTS, writeSummary } from './lib/summary.js';

const ORDER = ['quote', 'orders', 'tracking', 'subscriptions', 'webhooks'];
const names = readdirSync(join(PROJECT_ROOT, 'bench'))
  // *-micro.ts are in-process micro-benchmarks, run by hand (they write no results).
  .filter((f) => f.endsWith('.ts') && f !== 'run-all.ts' && !f.endsWith('-micro.ts'))
  .map((f) => f.slice(0, -'.ts'.length))
  .sort((a, b) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99) || a.localeCompare(b));

const ownFlags = ['--report-only', '--no-profile'];
const reportOnly = process.argv.includes('--report-only');
const profiling = !reportOnly && !process.argv.includes('--no-profile');
const args = process.argv.slice(2).filter((a) => !ownFlags.includes(a));
const started = reportOnly ? new Date(0) : new Date();
/** The profiling pass needs the load, not the statistics: one short window per row (later flags win). */
const PROFILE_PASS_ARGS = ['--duration', '3', '--rounds', '1'];

const failed: string[] = [];
function runBench(name: string, extraArgs: string[], env: NodeJS.ProcessEnv = {}): void {
  const run = spawnSync(process.execPath, ['--import', 'tsx', join('bench', `${name}.ts`), ...args, ...extraArgs], { cwd: PROJECT_ROOT, stdio: 'inherit', env: { ...process.env, ...env } });
  if (run.status !== 0) failed.push(name);
}
if (!reportOnly) {
  for (const name of names) {
    console.log(`\n=== bench/${name}.ts ===`);
    runBench(name, []);
  }
}
if (profiling) {
  for (const name of names) {
    console.log(`\n=== bench/${name}.ts (profiling pass, figures not used) ===`);
    runBench(name, PROFILE_PASS_ARGS, { BENCH_PROFILE: '1', BENCH_RESULTS_DIR: PROFILE_RESULTS });
  }
}

const { report, chart } = writeSummary({ names, since: started });
console.log(`\nsummary written to ${report} and ${chart}`);
if (failed.length > 0) {
  console.error(`\nbenchmarks that failed to run: ${failed.join(', ')}`);
  process.exit(1);
}
