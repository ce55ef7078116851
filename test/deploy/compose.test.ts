/**
 * The Docker files as configuration (no Docker engine here): every variable docker-compose.yml sets
 * on an API node is one src/config.ts reads and parses; the pairs distributed mode needs are there;
 * one node simulates; the balancer waits for healthy nodes and looks them up again; the image can
 * run embedded mode; deploy/init-secrets.sh writes the secrets once and keeps them.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ENV_VARIABLES, loadConfig } from '../../src/config.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

interface Service {
  build?: string;
  image?: string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: unknown;
}
// yaml resolves the `<<` merge keys (YAML 1.1), as docker compose does.
const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service> };
const apiNodes = Object.entries(compose.services).filter(([, s]) => s.build === '.');

/** `${NAME:?message}` / `${NAME:-default}` as compose substitutes them, with the values .env would hold. */
const DOTENV: Record<string, string> = { MASTER_KEY: Buffer.alloc(32, 7).toString('base64'), ADMIN_TOKEN: 'a'.repeat(48) };
function substitute(value: string): string {
  return String(value).replace(/\$\{(\w+)(?::([?-])([^}]*))?\}/g, (_m, name: string, kind?: string, rest?: string) => {
    if (DOTENV[name] !== undefined) return DOTENV[name];
    if (kind === '-') return rest ?? '';
    throw new Error(`${name} has no value and no default`);
  });
}

describe('docker-compose.yml against src/config.ts', () => {
  it('has two API nodes built from this Dockerfile', () => {
    expect(apiNodes.map(([name]) => name)).toEqual(['api1', 'api2']);
  });

  it('sets on each node only variables the service reads, with values it accepts', () => {
    for (const [name, node] of apiNodes) {
      const env = node.environment ?? {};
      expect(Object.keys(env).filter((key) => !ENV_VARIABLES.includes(key)), name).toEqual([]);
      const values = Object.fromEntries(Object.entries(env).map(([key, value]) => [key, substitute(value)]));
      const config = loadConfig(values);
      expect(config.storeKind, name).toBe('mongodb');
      expect(config.production, name).toBe(true);
      expect(config.seedDemo, name).toBe(false);
    }
  });

  it('gives every node the pairs distributed mode needs: store and bus, one MASTER_KEY from .env, an admin token, the proxy trusted', () => {
    for (const [name, { environment: env = {} }] of apiNodes) {
      for (const key of ['MONGODB_URL', 'REDIS_URL', 'MASTER_KEY', 'ADMIN_TOKEN', 'TRUST_PROXY', 'PUBLIC_BASE_URL']) expect(env[key], `${name} ${key}`).toBeDefined();
      // Required, never generated in the file: a fresh key on each `up` could not open the stored secrets.
      expect(env.MASTER_KEY, name).toMatch(/^\$\{MASTER_KEY:\?[^}]*init-secrets\.sh[^}]*\}$/);
      expect(env.ADMIN_TOKEN, name).toMatch(/^\$\{ADMIN_TOKEN:\?[^}]*\}$/);
    }
  });

  it('runs the sandbox simulator on exactly one node', () => {
    const simulating = apiNodes.filter(([, node]) => loadConfig(Object.fromEntries(Object.entries(node.environment ?? {}).map(([k, v]) => [k, substitute(v)]))).sandbox.simulator);
    expect(simulating.map(([name]) => name)).toEqual(['api1']);
  });

  it('starts the balancer once the nodes are healthy, and nginx looks them up again', () => {
    for (const [name, node] of apiNodes) expect(node.healthcheck, name).toBeDefined();
    expect(compose.services.lb!.depends_on).toEqual(Object.fromEntries(apiNodes.map(([name]) => [name, { condition: 'service_healthy' }])));
    const nginx = read('deploy/nginx.conf');
    expect(nginx).toMatch(/resolver 127\.0\.0\.11 valid=\d+s/);
    expect(nginx).toMatch(/zone api /);
    for (const [name] of apiNodes) expect(nginx).toMatch(new RegExp(`server ${name}:3000 resolve `));
    // `resolve` in an upstream needs nginx 1.27.3 or later.
    expect(compose.services.lb!.image).toMatch(/^nginx:1\.(2[7-9]|[3-9]\d)/);
  });
});

describe('Dockerfile: embedded mode as is', () => {
  const dockerfile = read('Dockerfile');
  it('runs as node in a DATA_DIR that node owns', () => {
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(runtime).toMatch(/RUN mkdir -p \/app\/data && chown node:node \/app\/data/);
    expect(runtime.indexOf('chown node:node /app/data')).toBeLessThan(runtime.indexOf('USER node'));
    expect(runtime).toContain('WORKDIR /app');
    expect(loadConfig({}).dataDir).toBe('./data');
    expect(runtime).toMatch(/CMD \["node", "dist\/src\/main\.js"\]/);
  });
});

describe('deploy/init-secrets.sh', () => {
  const dir = mkdtempSync(join(tmpdir(), 'init-secrets-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(join(ROOT, 'deploy/init-secrets.sh'), join(dir, 'deploy/init-secrets.sh'));
  const run = () => execFileSync('sh', [join(dir, 'deploy/init-secrets.sh')], { encoding: 'utf8' });

  it('writes a valid MASTER_KEY and ADMIN_TOKEN to an owner-only .env once, and keeps them on later runs', () => {
    expect(run()).toContain('Wrote MASTER_KEY and ADMIN_TOKEN');
    const first = readFileSync(join(dir, '.env'), 'utf8');
    expect(statSync(join(dir, '.env')).mode & 0o777).toBe(0o600);
    const values = Object.fromEntries(first.trim().split('\n').map((line) => line.split(/=(.*)/s).slice(0, 2)));
    expect(Object.keys(values)).toEqual(['MASTER_KEY', 'ADMIN_TOKEN']);
    const config = loadConfig(values);
    expect(config.masterKey?.length).toBe(32);
    expect(config.adminToken?.length).toBe(48);

    expect(run()).toContain('already holds MASTER_KEY');
    expect(readFileSync(join(dir, '.env'), 'utf8')).toBe(first);
  });
});
