/**
 * Where an app row's time goes: a V8 CPU profile of the app process taken over its inspector
 * (the app runs with --inspect=127.0.0.1:0) while the same load runs again, outside the measured
 * windows, summarised as self time by module and by function.
 */
import { readFileSync } from 'node:fs';
import { WebSocket } from 'ws';

export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** Sampled time the process was busy (idle excluded), in ms. */
  busyMs: number;
  /** Self time by package (node_modules/<pkg>), project file, node internals, or native/GC; % of busy time. */
  modules: Array<{ name: string; pct: number }>;
  functions: Array<{ name: string; pct: number }>;
}

/** The inspector's WebSocket URL, from the "Debugger listening on ws://…" line the app writes to its log. */
export function inspectorUrlFrom(logFile: string): string | null {
  return /Debugger listening on (ws:\/\/\S+)/.exec(readFileSync(logFile, 'utf8'))?.[1] ?? null;
}

/** Profiles the process behind `inspectorUrl` (1 ms sampling) while `run` runs. */
export async function profileWhile<T>(inspectorUrl: string, run: () => Promise<T>): Promise<{ result: T; profile: CpuProfile }> {
  const ws = new WebSocket(inspectorUrl, { perMessageDeflate: false });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  let next = 0;
  const waiting = new Map<number, (result: unknown) => void>();
  ws.on('message', (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
  });
  const call = <R>(method: string, params: object = {}) =>
    new Promise<R>((resolve) => {
      const id = ++next;
      waiting.set(id, resolve as (r: unknown) => void);
      ws.send(JSON.stringify({ id, method, params }));
    });
  try {
    await call('Profiler.enable');
    await call('Profiler.setSamplingInterval', { interval: 1000 });
    await call('Profiler.start');
    const result = await run();
    const { profile } = await call<{ profile: CpuProfile }>('Profiler.stop');
    return { result, profile };
  } finally {
    ws.close();
  }
}

/** node_modules/<pkg> (scoped too), "node internals", the project file, or "(native/vm)". */
export function owner(url: string): string {
  if (!url) return '(native/vm)';
  if (url.startsWith('node:')) return 'node internals';
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match) return match[1]!;
  return url.replace(/^file:\/\/.*?\/(src|rest|schema|realtime|bench)\//, '$1/');
}

const top = (map: Map<string, number>, total: number, n: number) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, us]) => ({ name, pct: Math.round((us / total) * 1000) / 10 }));

/** Self time per node summed by module and by function; idle time left out. */
export function summarizeProfile(profile: CpuProfile, n = 8): ProfileSummary {
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byModule = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let busy = 0;
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    if (!us || functionName === '(idle)') continue;
    busy += us;
    const who = functionName === '(garbage collector)' ? '(garbage collector)' : owner(url);
    byModule.set(who, (byModule.get(who) ?? 0) + us);
    const key = `${functionName || '(anonymous)'} ${who}${url ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  }
  return { busyMs: Math.round(busy / 1000), modules: top(byModule, busy, n), functions: top(byFunction, busy, n) };
}

/** One line per summary for the console and REPORT.md. */
export function describeProfile(summary: ProfileSummary): string {
  const list = (items: ProfileSummary['modules']) => items.map((m) => `${m.name} ${m.pct}%`).join(', ');
  return `busy ${summary.busyMs} ms sampled; by module: ${list(summary.modules)}; by function: ${list(summary.functions)}`;
}
