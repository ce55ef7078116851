/**
 * Issue #38 item 1, in without a terminal: the first start prints one operator set-up link on the
 * port the server bound (never a guessed one), stores only its hash, and stops once an operator
 * exists; the admin CLI builds its links on the address the running server recorded.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { api, makeDataDir } from '../helpers/app.js';
import { PROJECT_ROOT, spawnServer, type ServerProcess } from '../helpers/process.js';
import { OPS_HEADERS, PASSWORD, SET_PASSWORD, tokenOf } from './support.js';

const LINK = /http:\/\/localhost:(\d+)\/ops\/set-password#token=(pt_[A-Za-z0-9_-]{43})/g;

function cli(dataDir: string, args: string[]): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/admin-cli.ts', ...args, '--json'], {
    cwd: PROJECT_ROOT,
    // No PORT and no PUBLIC_BASE_URL: the CLI cannot know the port but from the server's record.
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', () => resolve(JSON.parse(stdout) as Record<string, unknown>));
  });
}

/** Every byte of the store's files (database, WAL): where a token in plain text would show. */
const storeBytes = (dataDir: string) => readdirSync(dataDir).filter((f) => f.includes('sqlite')).map((f) => readFileSync(join(dataDir, f)).toString('latin1')).join('');

describe('first start', { timeout: 300_000 }, () => {
  const dataDir = makeDataDir();
  let server: ServerProcess | null = null;
  afterAll(async () => {
    await server?.terminate();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints one set-up link on the bound port; its token is stored hashed; it makes the first admin; later starts print none', async () => {
    server = await spawnServer({ DATA_DIR: dataDir, PORT: '0' }, { startTimeoutMs: 90_000 });
    await expect.poll(() => [...server!.output().matchAll(LINK)].length, { timeout: 20_000 }).toBeGreaterThan(0);
    const links = [...server.output().matchAll(LINK)];
    // One link (the log line and the terminal banner carry the same one), on the port the server bound.
    expect(new Set(links.map((l) => l[2]))).toHaveLength(1);
    expect(Number(links[0]![1])).toBe(server.port);
    const token = links[0]![2]!;
    expect(storeBytes(dataDir)).not.toContain(token);

    // The CLI, with neither PORT nor PUBLIC_BASE_URL, prints links on the running server's address.
    const courier = await cli(dataDir, ['courier:create', '--name', 'Ana', '--phone', '+56912345678', '--vehicle', 'bike', '--plate', 'AB1234']);
    expect(courier.sign_in_url).toMatch(new RegExp(`^http://localhost:${server.port}/courier/welcome#code=`));

    const set = await api(`${server.url}/graphql`, { method: 'POST', headers: OPS_HEADERS, body: { query: SET_PASSWORD, variables: { input: { token: tokenOf(links[0]![0]), password: PASSWORD } } } });
    expect(set.body.data.operatorSetPassword.data.email).toBe('admin@delivery.local');
    await server.terminate();

    server = await spawnServer({ DATA_DIR: dataDir, PORT: '0' }, { startTimeoutMs: 90_000 });
    // Started and listening: the link, when there is one, comes right after; a health answer follows it.
    expect((await api(`${server.url}/api/v1/health`)).status).toBe(200);
    expect([...server.output().matchAll(LINK)]).toHaveLength(0);
  });
});
