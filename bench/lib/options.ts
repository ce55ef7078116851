import { parseArgs } from 'node:util';

export interface BenchSettings {
  connections: number;
  /** Measured seconds per target. */
  duration: number;
  /** Discarded warm-up seconds before each measurement. */
  warmup: number;
  /** A row and its baseline are measured in this many alternating windows (A B, B A, …). */
  rounds: number;
  /** Row ids to measure (`--only raw,rest`); null measures all. */
  only: string[] | null;
  /**
   * How the app under test runs: the compiled build (`node dist/src/main.js`, as in production) or
   * `tsx src/main.ts`. Recorded with the results (absent in results written before it existed: tsx).
   */
  runtime?: 'dist' | 'tsx';
}

/**
 * `--duration 10 --warmup 3 --connections 50 --rounds 4 --only a,b --runtime dist|tsx` (or BENCH_DURATION /
 * BENCH_WARMUP / BENCH_CONNECTIONS / BENCH_ROUNDS / BENCH_RUNTIME).
 */
export function benchSettings(argv = process.argv.slice(2)): BenchSettings {
  const { values } = parseArgs({
    args: argv,
    options: { duration: { type: 'string' }, warmup: { type: 'string' }, connections: { type: 'string' }, rounds: { type: 'string' }, only: { type: 'string' }, runtime: { type: 'string' } },
    // Not strict: `npm run bench -- …` forwards the same arguments to every benchmark, and each
    // takes only the flags it knows.
    strict: false,
  });
  const text = (v: string | boolean | undefined) => (typeof v === 'string' ? v : undefined);
  const number = (flag: string | boolean | undefined, env: string | undefined, fallback: number) => {
    const n = Number(text(flag) ?? env ?? fallback);
    if (!Number.isFinite(n) || n < 0) throw new Error(`not a number: ${String(flag ?? env)}`);
    return n;
  };
  const runtime = text(values.runtime) ?? process.env.BENCH_RUNTIME ?? 'dist';
  if (runtime !== 'dist' && runtime !== 'tsx') throw new Error(`--runtime must be dist or tsx, not ${runtime}`);
  return {
    connections: number(values.connections, process.env.BENCH_CONNECTIONS, 50),
    duration: number(values.duration, process.env.BENCH_DURATION, 10),
    warmup: number(values.warmup, process.env.BENCH_WARMUP, 3),
    rounds: Math.max(1, Math.round(number(values.rounds, process.env.BENCH_ROUNDS, 4))),
    only: text(values.only)?.split(',').map((s) => s.trim()) ?? null,
    runtime,
  };
}
