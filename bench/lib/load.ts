import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import autocannon from 'autocannon';

export interface LoadRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /**
   * Called by autocannon before every request to vary it (a unique header, a path cycling over
   * ids); must return a new request object. The same function runs for a row and its baseline.
   */
  setupRequest?: (request: autocannon.Request) => autocannon.Request;
}

export interface LoadOptions extends LoadRequest {
  connections?: number;
  /** Measured seconds. */
  duration: number;
  /** Seconds of discarded load before the measurement (JIT, caches, pools). 0 skips it. */
  warmup?: number;
  /** Server process CPU counter, sampled around the measured window. */
  serverCpuSeconds?: () => number;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** Connection errors, timeouts included. */
  errors: number;
  requests: number;
  /** Server process CPU use during the measured window, in cores (1.0 = one core busy). */
  serverCpu: number | null;
  /** Server CPU time per completed request, in µs: the cost of one request, less sensitive to machine noise than rps. */
  serverUsPerRequest: number | null;
  /** The load generator's (this process's) CPU use during the measured window, in cores. */
  loadCpu: number;
  /**
   * CPU used by everything else on the machine during the window, in cores (whole-machine busy
   * time from /proc/stat minus server and load generator). Above ~0.1 the figures are disturbed.
   */
  otherCpu: number | null;
}

/** Busy and total CPU time of the whole machine, in clock ticks (first line of /proc/stat). */
export function machineTicks(): { busy: number; total: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    return { busy: total - fields[3]! - fields[4]!, total };
  } catch {
    return null;
  }
}

/** Runs autocannon; with `latencies`, every response time (ms) is pushed onto it as it comes. */
function fire(request: LoadRequest, connections: number, duration: number, latencies?: number[]) {
  return new Promise<autocannon.Result>((resolve, reject) => {
    const options = {
      url: request.url,
      method: request.method ?? 'POST',
      headers: request.headers ?? {},
      ...(request.body !== undefined && { body: request.body }),
      ...(request.setupRequest && { requests: [{ setupRequest: request.setupRequest }] }),
      connections,
      duration,
      pipelining: 1,
    };
    const instance = autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
    if (latencies) instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  });
}

/** One measured window: raw counts, so that several windows add up exactly. */
interface Window {
  seconds: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** Every response time of the window, in ms. */
  latencies: number[];
  serverCpuSeconds: number | null;
  loadCpuSeconds: number;
  /** Whole-machine busy CPU seconds (all cores), or null without /proc/stat. */
  machineCpuSeconds: number | null;
}

async function measureWindow(options: LoadOptions, connections: number): Promise<Window> {
  const machineBefore = machineTicks();
  const serverBefore = options.serverCpuSeconds?.();
  const loadBefore = process.cpuUsage();
  const latencies: number[] = [];
  const result = await fire(options, connections, options.duration, latencies);
  const load = process.cpuUsage(loadBefore);
  const serverAfter = options.serverCpuSeconds?.();
  const machineAfter = machineTicks();
  return {
    seconds: result.duration,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    latencies,
    serverCpuSeconds: serverBefore === undefined || serverAfter === undefined ? null : serverAfter - serverBefore,
    loadCpuSeconds: (load.user + load.system) / 1e6,
    machineCpuSeconds:
      machineBefore && machineAfter
        ? ((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) * availableParallelism() * result.duration
        : null,
  };
}

/** The q-th percentile (nearest rank) of all the windows' response times together, in ms. */
export function mergedPercentile(windows: Array<Pick<Window, 'latencies'>>, q: number): number {
  const all = Float64Array.from(windows.flatMap((w) => w.latencies)).sort();
  if (all.length === 0) return 0;
  return Math.round(all[Math.max(0, Math.ceil((q / 100) * all.length) - 1)]! * 10) / 10;
}

/** The windows of one target as one result: counts and CPU add up, percentiles are over all responses. */
function summarize(windows: Window[]): LoadResult {
  const sum = (pick: (w: Window) => number) => windows.reduce((total, w) => total + pick(w), 0);
  const seconds = sum((w) => w.seconds);
  const requests = sum((w) => w.requests);
  const serverCpuSeconds = windows.every((w) => w.serverCpuSeconds !== null) ? sum((w) => w.serverCpuSeconds!) : null;
  const machineCpuSeconds = windows.every((w) => w.machineCpuSeconds !== null) ? sum((w) => w.machineCpuSeconds!) : null;
  const loadCpuSeconds = sum((w) => w.loadCpuSeconds);
  return {
    rps: Math.round(requests / seconds),
    p50: mergedPercentile(windows, 50),
    p99: mergedPercentile(windows, 99),
    non2xx: sum((w) => w.non2xx),
    errors: sum((w) => w.errors),
    requests,
    serverCpu: serverCpuSeconds === null ? null : round2(serverCpuSeconds / seconds),
    serverUsPerRequest: serverCpuSeconds === null || requests === 0 ? null : Math.round((serverCpuSeconds * 1e6) / requests),
    loadCpu: round2(loadCpuSeconds / seconds),
    otherCpu:
      machineCpuSeconds === null || serverCpuSeconds === null ? null : round2(Math.max(0, machineCpuSeconds - serverCpuSeconds - loadCpuSeconds) / seconds),
  };
}

/** One autocannon run (after a warm-up run) against a server in another process. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  return (await runInterleaved([{ id: 'only', ...options }], 1)).get('only')!;
}

/**
 * Measures several targets (a row and its baseline) in alternating windows: each target's
 * `duration` is split into `rounds` windows, run in the order A B, B A, A B, … after every target's
 * warm-up. Drift in the machine's speed (other tenants, clock changes) then weighs on both alike,
 * instead of on whichever ran in the slow stretch.
 */
export async function runInterleaved(targets: Array<LoadOptions & { id: string }>, rounds: number): Promise<Map<string, LoadResult>> {
  for (const target of targets) {
    if ((target.warmup ?? 3) > 0) await fire(target, target.connections ?? 50, target.warmup ?? 3);
  }
  const windows = new Map<string, Window[]>(targets.map((t) => [t.id, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const target of order) {
      windows.get(target.id)!.push(await measureWindow({ ...target, duration: target.duration / rounds }, target.connections ?? 50));
    }
  }
  return new Map([...windows].map(([id, measured]) => [id, summarize(measured)]));
}

const round2 = (n: number) => Math.round(n * 100) / 100;
