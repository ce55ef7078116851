import { runInterleaved, runLoad, type LoadRequest } from './load.js';
import type { ProfileSummary } from './profile.js';
import type { BenchSettings } from './options.js';
import type { ServerProcess } from './processes.js';
import type { Row } from './report.js';

export interface MeasuredTarget {
  id: string;
  label: string;
  server: ServerProcess;
  request: LoadRequest;
  /** Judges the one request sent before measuring: the figures only count if the answer is the real one. */
  check: (status: number, body: string) => boolean;
  /** An app target: profiles its process while `load` runs (see RunningApp.profile). */
  profile?: (load: () => Promise<unknown>) => Promise<ProfileSummary | null>;
}

/** Seconds of the same load, after the measured windows, during which an app target is profiled. */
const PROFILE_SECONDS = 4;

/**
 * Checks each target's answer once (through its setupRequest, if any), then measures the targets
 * together in alternating windows (runInterleaved) and returns their rows.
 */
export async function measureTogether(options: { targets: MeasuredTarget[]; settings: BenchSettings; baselineOf: Record<string, string> }): Promise<Row[]> {
  const { targets, settings, baselineOf } = options;
  for (const { label, request, check } of targets) {
    const path = new URL(request.url).pathname;
    const first = request.setupRequest ? request.setupRequest({ method: request.method ?? 'POST', path, headers: request.headers ?? {} }) : {};
    const url = new URL(first.path ?? path, request.url);
    const res = await fetch(url, { method: request.method ?? 'POST', headers: (first.headers ?? request.headers) as Record<string, string>, body: request.body ?? null });
    const text = await res.text();
    if (!check(res.status, text)) throw new Error(`${label} answered ${res.status}: ${text.slice(0, 500)}`);
  }
  console.log(`measuring ${targets.map((t) => t.label).join(' and ')} …`);
  const { connections, duration, warmup, rounds } = settings;
  const results = await runInterleaved(
    targets.map(({ id, server, request }) => ({ id, ...request, connections, duration, warmup, serverCpuSeconds: server.cpuSeconds })),
    rounds,
  );
  const rows: Row[] = targets.map(({ id, label }) => ({ id, label, result: results.get(id)!, ...(baselineOf[id] && { baseline: baselineOf[id] }) }));
  for (const [i, { profile, request, server }] of targets.entries()) {
    if (profile) rows[i]!.profile = await profile(() => runLoad({ ...request, connections, duration: PROFILE_SECONDS, warmup: 0, serverCpuSeconds: server.cpuSeconds }));
  }
  return rows;
}
