import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Linux clock ticks per second for /proc/<pid>/stat (USER_HZ is 100 on every mainstream kernel). */
const CLOCK_TICKS = 100;

export interface ServerProcess {
  url: string;
  pid: number;
  /** CPU seconds (user + system) this process has used so far, from /proc/<pid>/stat. */
  cpuSeconds(): number;
  /** SIGTERM, then SIGKILL after 10 s; resolves once the process has exited. */
  stop(): Promise<void>;
}

export interface SpawnOptions {
  /** Script path relative to the project root: a `.ts` file runs as `node --import tsx <script>`, a `.js` file as `node <script>`. */
  script: string;
  env?: Record<string, string>;
  /** Extra node flags (e.g. --cpu-prof). */
  nodeArgs?: string[];
  /** Where the child's stdout and stderr go: a file path, or discarded. */
  logFile?: string;
  /** How the child says it is listening: an IPC message {port}, or the app's "listening" log line. */
  ready: 'ipc' | 'log';
  /** How long it may take to listen (default 30 s; a large store on a busy machine takes longer). */
  startTimeoutMs?: number;
}

/**
 * Starts a server in its own process, so that it never shares a core's event loop with the load
 * generator (autocannon runs in the bench process).
 */
export async function spawnServer(options: SpawnOptions): Promise<ServerProcess> {
  const out = options.logFile ? openSync(options.logFile, 'a') : 'ignore';
  const loader = options.script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...loader, options.script], {
    cwd: PROJECT_ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', ...options.env },
    stdio: ['ignore', out, out, 'ipc'],
  });
  if (typeof out === 'number') closeSync(out);
  try {
    const timeoutMs = options.startTimeoutMs ?? 30_000;
    const port = await (options.ready === 'ipc' ? portFromIpc(child, options.script, timeoutMs) : portFromLog(child, options.script, options.logFile!, timeoutMs));
    child.disconnect();
    return {
      url: `http://127.0.0.1:${port}`,
      pid: child.pid!,
      cpuSeconds: () => processCpuSeconds(child.pid!),
      stop: () => stopChild(child),
    };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

function portFromIpc(child: ChildProcess, name: string, timeoutMs: number): Promise<number> {
  return withStartTimeout(child, name, timeoutMs, (resolve) => {
    child.on('message', (message: { port?: number }) => {
      if (typeof message.port === 'number') resolve(message.port);
    });
  });
}

function portFromLog(child: ChildProcess, name: string, logFile: string, timeoutMs: number): Promise<number> {
  return withStartTimeout(child, name, timeoutMs, (resolve) => {
    const timer = setInterval(() => {
      const match = /"port":(\d+)[^\n]*"msg":"listening"/.exec(readFileSync(logFile, 'utf8'));
      if (match) {
        clearInterval(timer);
        resolve(Number(match[1]));
      }
    }, 50);
    child.once('exit', () => clearInterval(timer));
  });
}

function withStartTimeout(child: ChildProcess, name: string, timeoutMs: number, wait: (resolve: (port: number) => void) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within ${timeoutMs / 1000} s`)), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before listening`));
    });
    wait((port) => {
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve(port);
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(force);
}

export function processCpuSeconds(pid: number): number {
  // Fields after the parenthesised command name: state is [0], utime [11], stime [12].
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** Tells the parent bench process which port a baseline listens on. */
export function announcePort(port: number): void {
  process.send?.({ port });
}
