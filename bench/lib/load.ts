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
function machineTicks(): { busy: number; total: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    return { busy: total - fields[3]! - fields[4]!, total };
  } catch {
    return null;
  }
}

function fire(request: LoadRequest, connections: number, duration: number) {
  return autocannon({
    url: request.url,
    method: request.method ?? 'POST',
    headers: request.headers ?? {},
    ...(request.body !== undefined && { body: request.body }),
    ...(request.setupRequest && { requests: [{ setupRequest: request.setupRequest }] }),
    connections,
    duration,
    pipelining: 1,
  });
}

/** One autocannon run (after a warm-up run) against a server in another process. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const connections = options.connections ?? 50;
  if ((options.warmup ?? 3) > 0) await fire(options, connections, options.warmup ?? 3);

  const machineBefore = machineTicks();
  const serverBefore = options.serverCpuSeconds?.();
  const loadBefore = process.cpuUsage();
  const result = await fire(options, connections, options.duration);
  const load = process.cpuUsage(loadBefore);
  const serverAfter = options.serverCpuSeconds?.();
  const machineAfter = machineTicks();

  const serverCpu = serverBefore === undefined || serverAfter === undefined ? null : (serverAfter - serverBefore) / result.duration;
  const loadCpu = (load.user + load.system) / 1e6 / result.duration;
  const machineCpu =
    machineBefore && machineAfter
      ? ((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) * availableParallelism()
      : null;

  return {
    rps: Math.round(result.requests.total / result.duration),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    requests: result.requests.total,
    serverCpu: serverCpu === null ? null : round2(serverCpu),
    serverUsPerRequest: serverCpu === null || result.requests.total === 0 ? null : Math.round((serverCpu * result.duration * 1e6) / result.requests.total),
    loadCpu: round2(loadCpu),
    otherCpu: machineCpu === null || serverCpu === null ? null : round2(Math.max(0, machineCpu - serverCpu - loadCpu)),
  };
}

const round2 = (n: number) => Math.round(n * 100) / 100;
