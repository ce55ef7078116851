/**
 * Dispatch on the Meal Delivery Routing Problem instances (grubhub/mdrplib): replays an instance
 * through the service's own dispatch (bench/lib/mdrp/replay.ts) and writes the public evaluator's
 * three solution files with a summary.
 *
 *   npm run bench:dispatch -- --instance test/fixtures/mdrp/0o50t75s1p100 --out /tmp/sol
 *   npm run bench:dispatch -- --all test/fixtures/mdrp [--out /tmp/sols] [--env DISPATCH_POLICY=greedy]
 *
 * The public evaluator (python3 with pandas; never vendored here) scores both solutions, ours and the
 * issue's reference policy (bench/lib/mdrp/reference.ts, replayed on the same instance in the same
 * run), when given its path; its own printed figures (mean click-to-door, ready-to-pickup,
 * feasibility) then fill the table:
 *   git --git-dir=<mirror of grubhub/mdrplib> show HEAD:MDRP_code/compute_performance_summary.py > /tmp/cps.py
 *   npm run bench:dispatch -- --all test/fixtures/mdrp --evaluate /tmp/cps.py [--python /usr/bin/python3] [--out DIR]
 * Without --evaluate the figures are the bench's own (bench/lib/mdrp/solution.ts, the evaluator's rules).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readInstance } from './lib/mdrp/instance.js';
import { replayInstance, type ReplayResult } from './lib/mdrp/replay.js';
import { referencePolicy } from './lib/mdrp/reference.js';
import { checkFeasibility, writeSolution, type SolutionSummary } from './lib/mdrp/solution.js';

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

/** Published offline optimum (same source), where the issue lists it. */
export const OPTIMUM: Record<string, { ctd: number; rtp: number }> = {
  '0o50t75s1p100': { ctd: 27.49, rtp: 0.96 },
  '0r50t75s1p100': { ctd: 28.47, rtp: 0.67 },
  '0o50t100s1p100': { ctd: 29.81, rtp: 1.46 },
  '0r50t100s1p100': { ctd: 30.76, rtp: 1.13 },
  '0o50t75s2p100': { ctd: 26.83, rtp: 0.3 },
  '0r50t75s2p100': { ctd: 27.95, rtp: 0.21 },
};

const evaluator = arg('evaluate');
const python = arg('python') ?? 'python3';

/** Figures of one solution: the public evaluator's when it is given, the bench's own otherwise. */
interface Scored { ctd: number; rtp: number; delivered: number; orders: number; feasible: boolean; violations: number; by: 'evaluator' | 'bench' }

/** Runs the unmodified public evaluator on a solution directory and reads back its own printed figures. */
function evaluate(instanceDir: string, solutionDir: string): Partial<Pick<Scored, 'ctd' | 'rtp' | 'delivered'>> & { feasible: boolean } {
  const out = join(solutionDir, 'evaluation');
  execFileSync(python, [evaluator!, `instance_dir=${instanceDir}`, `input_dir=${solutionDir}`, `output_dir=${out}`], { stdio: 'pipe' });
  const feasibility = readFileSync(join(out, 'feasibility_check.txt'), 'utf8');
  // An infeasible solution gets no performance file: its figures stay the bench's own.
  if (!existsSync(join(out, 'solution_performance.txt'))) return { feasible: false };
  const performance = readFileSync(join(out, 'solution_performance.txt'), 'utf8');
  const delivered = Number(/number of orders delivered: (\d+)/.exec(performance)?.[1] ?? NaN);
  // The order table's "mean" row: click-to-door, ready-to-door, ready-to-pickup, click-to-door overage.
  const mean = /\nmean\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)/.exec(performance);
  return { ctd: Number(mean?.[1]), rtp: Number(mean?.[3]), delivered, feasible: /^FEASIBLE$/m.test(feasibility) };
}

function score(instanceDir: string, dir: string, own: SolutionSummary, violations: string[]): Scored {
  const base = { ctd: own.meanClickToDoor, rtp: own.meanReadyToPickup, delivered: own.delivered, orders: own.orders, feasible: violations.length === 0, violations: violations.length, by: 'bench' as const };
  return evaluator ? Object.assign(base, evaluate(instanceDir, dir), { by: 'evaluator' as const }) : base;
}

interface Row { name: string; ours: Scored; reference: Scored; result: ReplayResult }

async function one(dir: string, out: string): Promise<Row> {
  const instance = readInstance(dir);
  const result = await replayInstance({ instance, env });
  const violations = checkFeasibility(instance, result.solution);
  writeSolution(out, instance, result.solution);
  writeFileSync(join(out, 'summary.json'), JSON.stringify({ instance: instance.name, env, ...result.summary, withdrawals: result.withdrawals, violations }, null, 2) + '\n');
  const ref = referencePolicy(instance);
  const refDir = join(out, 'reference');
  writeSolution(refDir, instance, ref.solution);
  return { name: instance.name, result, ours: score(dir, out, result.summary, violations), reference: score(dir, refDir, ref.summary, checkFeasibility(instance, ref.solution)) };
}

const f2 = (n: number) => n.toFixed(2);
const fig = (s: Scored) => `${f2(s.ctd)} / ${f2(s.rtp)}${s.delivered < s.orders ? ` (${s.delivered}/${s.orders})` : ''}${s.feasible ? '' : ` INFEASIBLE${s.violations ? ` (${s.violations} violations)` : ''}`}`;

function row(r: Row): string {
  const p = PUBLISHED[r.name];
  const o = OPTIMUM[r.name];
  const s = r.result.summary;
  return `| ${r.name} | ${fig(r.ours)} | ${p ? `${f2(p.ctd)} / ${f2(p.rtp)}` : '–'} | ${o ? `${f2(o.ctd)} / ${f2(o.rtp)}` : '–'} | ${fig(r.reference)} | ${f2(r.ours.ctd / r.reference.ctd)} / ${f2(r.ours.rtp / r.reference.rtp)} | ${r.result.withdrawals} | ${s.ordersInBundles} in ${s.bundles} | ${(r.result.wallMs / 1000).toFixed(1)} s |`;
}
const header = () =>
  `figures by ${evaluator ? 'the public evaluator (compute_performance_summary.py)' : "the bench's own check of the evaluator's rules"}: mean click-to-door / mean ready-to-pickup, minutes\n\n` +
  '| instance | this service | rolling horizon (published) | offline optimum (published) | reference periodic matching | ours ÷ reference | withdrawals | bundled orders | replay |\n|---|---|---|---|---|---|---|---|---|';

const all = arg('all');
const single = arg('instance');
const out = arg('out') ?? mkdtempSync(join(tmpdir(), 'mdrp-solutions-'));
const dirs = all ? readdirSync(all).filter((d) => existsSync(join(all, d, 'orders.txt'))).sort().map((d) => join(all, d)) : single ? [single] : [];
if (dirs.length === 0) {
  console.error('usage: npm run bench:dispatch -- --instance DIR | --all DIR  [--out DIR] [--evaluate compute_performance_summary.py [--python python3]] [--env KEY=VALUE …]');
  process.exit(2);
}
console.log(`dispatch on MDRP instances${Object.keys(env).length ? ` (${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ')})` : ''}\n`);
console.log(header());
const rows: Row[] = [];
for (const d of dirs) {
  const r = await one(d, dirs.length > 1 || all ? join(out, d.replace(/\/+$/, '').split('/').at(-1)!) : out);
  rows.push(r);
  console.log(row(r));
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(`\nmean over ${rows.length}: ours ${f2(mean(rows.map((r) => r.ours.ctd)))} / ${f2(mean(rows.map((r) => r.ours.rtp)))}, reference ${f2(mean(rows.map((r) => r.reference.ctd)))} / ${f2(mean(rows.map((r) => r.reference.rtp)))}; feasible ${rows.filter((r) => r.ours.feasible).length}/${rows.length} (reference ${rows.filter((r) => r.reference.feasible).length}/${rows.length})`);
console.log(`solution files (and the evaluator's output under evaluation/) in ${out}`);
