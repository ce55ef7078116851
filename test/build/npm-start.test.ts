/**
 * `npm start` as a user runs it, in a copy of the checkout (its own dist/, so test/build's build is
 * left alone): a SIGINT or SIGTERM sent to the npm process alone — not its process group, as a
 * supervisor or `kill <pid>` does — stops the server. The script `exec`s node, so npm's signal
 * forwarding reaches the server instead of stopping at the intermediate shell.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const COPIED = ['src', 'rest', 'schema', 'realtime', 'web', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];

describe('npm start stops on a signal sent to its own process', () => {
  const copy = mkdtempSync(join(tmpdir(), 'npm-start-'));
  beforeAll(() => {
    for (const entry of COPIED) cpSync(join(ROOT, entry), join(copy, entry), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  });
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} to the npm process: the server drains and npm exits`, async () => {
      const npm = spawn('npm', ['start'], {
        cwd: copy,
        // Its own process group, so that only the signal below reaches it (no terminal's Ctrl+C).
        detached: true,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? copy, PORT: '0', HOST: '127.0.0.1', DATA_DIR: join(copy, 'data'), SEED_DEMO: 'false', SANDBOX_SIMULATOR: 'false', LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = once(npm, 'exit') as Promise<[number | null, string | null]>;
      try {
        const port = await new Promise<number>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`npm start did not listen:\n${output}`)), 170_000);
          npm.stdout.on('data', () => {
            const port = /"msg":"listening"[^\n]*"port":(\d+)|"port":(\d+)[^\n]*"msg":"listening"/.exec(output);
            if (port) {
              clearTimeout(timer);
              resolve(Number(port[1] ?? port[2]));
            }
          });
        });
        expect((await fetch(`http://127.0.0.1:${port}/api/v1/health`)).status).toBe(200);

        process.kill(npm.pid!, signal);
        const [code] = await Promise.race([exited, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`npm start still running 15 s after ${signal}:\n${output}`)), 15_000))]);
        expect(code, output).toBe(0);
        expect(output).toContain('draining and shutting down');
        await expect(fetch(`http://127.0.0.1:${port}/api/v1/health`)).rejects.toThrow();
      } finally {
        // Whatever is left of the group (nothing, when the test passes).
        try {
          process.kill(-npm.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }, 200_000);
  }
});
