/**
 * `npm run bench`: runs every benchmark (bench/*.ts except this file) one after another, each in
 * its own process, passing the same arguments (e.g. `-- --duration 20`). A benchmark that crashes
 * makes the exit code non-zero; a missed target does not (benchmarks report, they do not assert).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './lib/processes.js';

const benches = readdirSync(join(PROJECT_ROOT, 'bench'))
  .filter((f) => f.endsWith('.ts') && f !== 'run-all.ts')
  .sort();

const failed: string[] = [];
for (const file of benches) {
  console.log(`\n=== bench/${file} ===`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', join('bench', file), ...process.argv.slice(2)], {
    cwd: PROJECT_ROOT,
    stdio: 'inherit',
  });
  if (run.status !== 0) failed.push(file);
}
if (failed.length > 0) {
  console.error(`\nbenchmarks that failed to run: ${failed.join(', ')}`);
  process.exit(1);
}
