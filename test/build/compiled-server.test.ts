/**
 * Production runs compiled JavaScript (`npm run build`, then `node dist/src/main.js`, as `npm start`
 * and the Dockerfile do). Builds once, then runs the compiled admin CLI and server as a user would,
 * with no tsx loader: the non-TypeScript files (gazetteer CSV, tracking page, Swagger UI) must be
 * found from dist/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: Record<string, string>): Promise<Finished> {
  const child = spawn(command, args, { cwd: PROJECT_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the compiled build (node dist/src/main.js)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'compiled-server-'));
  const env = { DATA_DIR: dataDir, NODE_ENV: 'production', SEED_DEMO: 'false', SANDBOX_SIMULATOR: 'false', LOG_LEVEL: 'info' };
  let server: ChildProcess | undefined;
  let output = '';
  let url = '';
  let testKey = '';

  beforeAll(async () => {
    const build = await run('npm', ['run', '--silent', 'build'], {});
    expect(build.code, `npm run build failed:\n${build.stdout}\n${build.stderr}`).toBe(0);

    // The compiled admin CLI (what an operator runs in the container) creates the merchant.
    const admin = await run(process.execPath, ['dist/src/admin-cli.js', 'merchant:create', '--name', 'Build check', '--address', 'Av. Providencia 1234, Providencia', '--json'], env);
    expect(admin.code, admin.stderr).toBe(0);
    testKey = (JSON.parse(admin.stdout) as { test_key: string }).test_key;

    server = spawn(process.execPath, ['dist/src/main.js'], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const child = server;
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`compiled server did not start:\n${output}`)), 30_000);
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /"port":(\d+)[^\n]*"msg":"listening"/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      });
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`compiled server exited with ${code}:\n${output}`));
      });
    });
    child.removeAllListeners('exit');
    url = `http://127.0.0.1:${port}`;
  }, 300_000);

  afterAll(async () => {
    if (server && server.exitCode === null && server.signalCode === null) {
      const exited = once(server, 'exit');
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs without the tsx loader', () => {
    expect(server!.spawnargs.slice(1)).toEqual(['dist/src/main.js']);
  });

  it('answers the health check', async () => {
    const res = await fetch(`${url}/api/v1/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ success: true, status: 'ok' });
  });

  it('quotes an address through the offline gazetteer (the CSV copied into dist)', async () => {
    const res = await fetch(`${url}/api/v1/shipping/quote`, {
      method: 'POST',
      headers: { authorization: `Bearer ${testKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ destination: 'Av. Apoquindo 3000, Las Condes', total_weight: 3 }),
    });
    expect(res.status).toBe(200);
    const quote = (await res.json()) as { success: boolean; price: number; distance_m: number };
    expect(quote.success).toBe(true);
    expect(quote.price).toBeGreaterThan(0);
    expect(quote.distance_m).toBeGreaterThan(0);
  });

  it('serves the tracking page and its assets (realtime/public copied into dist)', async () => {
    const created = await fetch(`${url}/api/v1/orders`, {
      method: 'POST',
      headers: { 'x-api-key': testKey, 'idempotency-key': 'build-check-1', 'content-type': 'application/json' },
      body: JSON.stringify({ dropoff_address: 'Av. Apoquindo 3000, Las Condes', customer_name: 'Ana Pérez', customer_phone: '+56987654321', payment_mode: 'prepaid' }),
    });
    expect(created.status).toBe(201);
    const { tracking_number: ref } = (await created.json()) as { tracking_number: string };

    const page = await fetch(`${url}/track/${ref}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/track/assets/track.js');
    for (const [file, type] of [['track.js', 'text/javascript'], ['track.css', 'text/css'], ['courier.svg', 'image/svg+xml']]) {
      const asset = await fetch(`${url}/track/assets/${file}`);
      expect(asset.status, file).toBe(200);
      expect(asset.headers.get('content-type'), file).toContain(type);
      expect((await asset.arrayBuffer()).byteLength, file).toBeGreaterThan(0);
    }
  });

  it('serves the merchant console shell and its bundle (dist/web, written by npm run build)', async () => {
    const shell = await fetch(`${url}/console/orders/new`);
    expect(shell.status).toBe(200);
    const script = /src="(\/console\/assets\/console-\w+\.js)"/.exec(await shell.text())?.[1];
    expect(script).toBeDefined();
    const bundle = await fetch(`${url}${script}`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
  });

  it('serves the OpenAPI document and the Swagger UI page with its assets', async () => {
    const doc = await fetch(`${url}/api/v1/openapi.json`);
    expect(doc.status).toBe(200);
    expect(((await doc.json()) as { openapi: string }).openapi).toMatch(/^3\./);

    const page = await fetch(`${url}/api/v1/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('swagger-ui-bundle.js');
    for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css', 'docs-init.js']) {
      const asset = await fetch(`${url}/api/v1/docs/assets/${file}`);
      expect(asset.status, file).toBe(200);
      expect((await asset.arrayBuffer()).byteLength, file).toBeGreaterThan(0);
    }
  });

  it('stops cleanly on SIGTERM', async () => {
    const exited = once(server!, 'exit');
    server!.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    expect(code, output).toBe(0);
  });
});
