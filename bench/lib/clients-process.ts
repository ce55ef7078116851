import { spawn } from 'node:child_process';
import { PROJECT_ROOT } from './processes.js';
import type { LoadResult } from './load.js';
import type { TrackingClientConfig, TrackingClientResult } from './tracking-clients.js';
import type { RunningApp } from './app.js';
import type { ProfileSummary } from './profile.js';

export interface ClientsProcess {
  result: Promise<TrackingClientResult>;
  pid: number;
}

/**
 * Starts the load generator (bench/lib/tracking-clients.ts) in its own process; `onWindow` runs
 * when its subscribers are connected (the warm-up load follows), and when its measured window starts and ends.
 */
export function startClients(config: TrackingClientConfig, onWindow: (edge: 'connected' | 'start' | 'end') => void): ClientsProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/tracking-clients.ts'], {
    cwd: PROJECT_ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const result = new Promise<TrackingClientResult>((resolve, reject) => {
    child.on('message', (message: { type: string; result?: TrackingClientResult; error?: string; sockets?: number; seconds?: number }) => {
      if (message.type === 'connected') {
        console.log(`  ${message.sockets} clients connected and ready in ${message.seconds?.toFixed(1)} s`);
        onWindow('connected');
      }
      else if (message.type === 'window-start') onWindow('start');
      else if (message.type === 'window-end') onWindow('end');
      else if (message.type === 'result') resolve(message.result!);
      else if (message.type === 'failed') reject(new Error(`load generator: ${message.error}`));
    });
    child.once('exit', (code) => reject(new Error(`load generator exited with ${code} before reporting`)));
  });
  child.send({ type: 'start', config });
  result.finally(() => child.kill()).catch(() => {});
  return { result, pid: child.pid! };
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** A load generator's result as a report row's figures: messages received are the "requests". */
export function loadResultOf(r: TrackingClientResult, window: { serverCpu: number; windowSeconds: number; machineCores: number }): LoadResult {
  const { serverCpu, windowSeconds, machineCores } = window;
  return {
    rps: r.receivedPerSecond,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.reportsNon2xx,
    errors: r.reportErrors + r.socketsClosed,
    requests: r.receivedInWindow,
    serverCpu: round2(serverCpu),
    serverUsPerRequest: r.receivedInWindow ? Math.round((serverCpu * windowSeconds * 1e6) / r.receivedInWindow) : null,
    loadCpu: r.cpu,
    otherCpu: round2(Math.max(0, machineCores - serverCpu - r.cpu)),
  };
}

/**
 * Profiles `app` through the load generator's warm-up (from its 'connected' edge to its window's
 * start), so the profile sees the row's load without touching the measured window. Call `edge` from
 * the onWindow callback; `summary` resolves once the window has started (null without profiling).
 */
export function warmupProfile(app: Pick<RunningApp, 'profile'>) {
  let started!: () => void;
  const windowStarted = new Promise<void>((resolve) => (started = resolve));
  let summary: Promise<ProfileSummary | null> = Promise.resolve(null);
  return {
    edge(edge: 'connected' | 'start' | 'end') {
      if (edge === 'connected') summary = app.profile(() => windowStarted).catch(() => null);
      else if (edge === 'start') started();
    },
    summary: () => summary,
  };
}
