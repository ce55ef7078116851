/**
 * Dispatch on the Meal Delivery Routing Problem instances (grubhub/mdrplib): replays an instance
 * through the service's own dispatch (bench/lib/mdrp/replay.ts) and writes the public evaluator's
 * three solution files with a summary.
 *
 *   npm run bench:dispatch -- --instance test/fixtures/mdrp/0o50t75s1p100 --out /tmp/sol
 *   npm run bench:dispatch -- --all test/fixtures/mdrp [--out /tmp/sols] [--env DISPATCH_POLICY=greedy]
 *
 * The evaluator itself (python3, pandas) may then be run on the output:
 *   python3 compute_performance_summary.py instance_dir=… input_dir=/tmp/sol output_dir=/tmp/sol
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readInstance } from './lib/mdrp/instance.js';
import { replayInstance, type ReplayResult } from './lib/mdrp/replay.js';
import { checkFeasibility, writeSolution } from './lib/mdrp/solution.js';

/** Published figures (mean click-to-door / ready-to-pickup, minutes): rolling horizon (Reyes et al. 2018, Table 4). */
export const PUBLISHED: Record<string, { ctd: number; rtp: number }> = {
  '0o50t75s1p100': { ctd: 28.4, rtp: 1.65 },
  '0r50t75s1p100': { ctd: 29.57, rtp: 1.04 },
  '0o50t100s1p100': { ctd: 31.19, rtp: 2.52 },
  '0r50t100s1p100': { ctd: 32.46, rtp: 2.14 },
  '0o50t75s2p100': { ctd: 27.29, rtp: 0.58 },
  '0r50t75s2p100': { ctd: 29.03, rtp: 0.64 },
};

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
function args(name: string): string[] {
  return process.argv.flatMap((a, i) => (a === `--${name}` && process.argv[i + 1] ? [process.argv[i + 1]!] : []));
}

const env = Object.fromEntries(args('env').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));

async function one(dir: string, out: string | undefined): Promise<{ name: string; result: ReplayResult; violations: string[] }> {
  const instance = readInstance(dir);
  const result = await replayInstance({ instance, env });
  const violations = checkFeasibility(instance, result.solution);
  if (out) {
    writeSolution(out, instance, result.solution);
    writeFileSync(join(out, 'summary.json'), JSON.stringify({ instance: instance.name, env, ...result.summary, withdrawals: result.withdrawals, violations }, null, 2) + '\n');
  }
  return { name: instance.name, result, violations };
}

const f2 = (n: number) => n.toFixed(2);

function row(r: { name: string; result: ReplayResult; violations: string[] }): string {
  const s = r.result.summary;
  const p = PUBLISHED[r.name];
  return `| ${r.name} | ${s.delivered}/${s.orders} | ${f2(s.meanClickToDoor)} / ${f2(s.meanReadyToPickup)} | ${p ? `${f2(p.ctd)} / ${f2(p.rtp)}` : '–'} | ${r.violations.length === 0 ? 'yes' : `no (${r.violations.length})`} | ${r.result.withdrawals} | ${s.ordersInBundles} in ${s.bundles} | ${(r.result.wallMs / 1000).toFixed(1)} s |`;
}
const header = '| instance | delivered | mean click-to-door / ready-to-pickup (min) | rolling horizon (published) | feasible | withdrawals | bundled orders | replay |\n|---|---|---|---|---|---|---|---|';

const all = arg('all');
const single = arg('instance');
const out = arg('out');
if (all) {
  const dirs = readdirSync(all).filter((d) => existsSync(join(all, d, 'orders.txt'))).sort();
  console.log(`dispatch on MDRP instances${Object.keys(env).length ? ` (${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ')})` : ''}\n`);
  console.log(header);
  for (const d of dirs) console.log(row(await one(join(all, d), out && join(out, d))));
} else if (single) {
  const r = await one(single, out);
  console.log(header);
  console.log(row(r));
  if (r.violations.length > 0) console.log(`\ninfeasible:\n  ${r.violations.slice(0, 20).join('\n  ')}${r.violations.length > 20 ? `\n  … ${r.violations.length - 20} more` : ''}`);
  if (out) console.log(`\nsolution files in ${out}`);
} else {
  console.error('usage: npm run bench:dispatch -- --instance DIR [--out DIR] | --all DIR [--out DIR]  [--env KEY=VALUE …]');
  process.exit(2);
}
