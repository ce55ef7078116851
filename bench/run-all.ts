/**
 * `npm run bench`: runs every benchmark one after another (quote, orders, tracking, subscriptions,
 * webhooks, then any other bench/*.ts), each in its own process with the same arguments (e.g. `-- --duration 20`),
 * then writes bench/results/REPORT.md and bench/results/chart.svg from the figures of this run.
 * A benchmark that crashes makes the exit code non-zero; a missed target does not (benchmarks
 * report, they do not assert). `--report-only` rewrites REPORT.md and chart.svg from the
 * bench/results/*.json already there, without running anything.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './lib/processes.js';
import { writeSummary } from './lib/summary.js';

const ORDER = ['quote', 'orders', 'tracking', 'subscriptions', 'webhooks'];
const names = readdirSync(join(PROJECT_ROOT, 'bench'))
  // *-micro.ts are in-process micro-benchmarks, run by hand (they write no results).
  .filter((f) => f.endsWith('.ts') && f !== 'run-all.ts' && !f.endsWith('-micro.ts'))
  .map((f) => f.slice(0, -'.ts'.length))
  .sort((a, b) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99) || a.localeCompare(b));

const reportOnly = process.argv.includes('--report-only');
const args = process.argv.slice(2).filter((a) => a !== '--report-only');
const started = reportOnly ? new Date(0) : new Date();

const failed: string[] = [];
if (!reportOnly) {
  for (const name of names) {
    console.log(`\n=== bench/${name}.ts ===`);
    const run = spawnSync(process.execPath, ['--import', 'tsx', join('bench', `${name}.ts`), ...args], { cwd: PROJECT_ROOT, stdio: 'inherit' });
    if (run.status !== 0) failed.push(name);
  }
}

const { report, chart } = writeSummary({ names, since: started });
console.log(`\nsummary written to ${report} and ${chart}`);
if (failed.length > 0) {
  console.error(`\nbenchmarks that failed to run: ${failed.join(', ')}`);
  process.exit(1);
}
