import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { ADMIN_TOKEN } from './app.js';

export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  port: number;
  output: () => string;
  /** SIGTERM and wait; resolves with the exit code. */
  terminate(): Promise<number | null>;
  /** SIGKILL and wait. */
  kill(): Promise<void>;
}

/**
 * Starts `src/main.ts` in its own process (real SIGTERM/SIGKILL behaviour) and waits for it to
 * listen, `startTimeoutMs` at most (tsx compiles the app at start: seconds on a loaded machine).
 */
export async function spawnServer(env: Record<string, string>, options: { startTimeoutMs?: number } = {}): Promise<ServerProcess> {
  const startTimeoutMs = options.startTimeoutMs ?? 20_000;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: PROJECT_ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', ADMIN_TOKEN, LOG_LEVEL: 'info', SEED_DEMO: 'false', SANDBOX_SIMULATOR: 'false', POSITION_MAX_SPEED_KMH: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within ${startTimeoutMs} ms:\n${output}`));
    }, startTimeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"port":(\d+)[^\n]*"msg":"listening"/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  child.removeAllListeners('exit');
  return {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    async terminate() {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      return code;
    },
    async kill() {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
  };
}
