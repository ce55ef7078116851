/**
 * SIGTERM under keep-alive load (issue #25 item 6): the server process drains in a way its clients
 * can follow. Keep-alive clients (node:http Agent, one socket each) send requests back to back —
 * order creation and reads on the REST fast path, the order list on Express, GraphQL — and the
 * process gets SIGTERM in the middle. Every request is answered (2xx, or 503 with Retry-After) or
 * never sent (the connection was refused: the node no longer listens); none is reset. A client's
 * last answer says `Connection: close`; the process exits within SHUTDOWN_GRACE_MS + 1 s, and every
 * order it acknowledged is there after a restart.
 */
import { request, Agent } from 'node:http';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildContainer } from '../../src/container.js';
import { loadConfig } from '../../src/config.js';
import { api, makeDataDir, type MerchantCredentials } from '../helpers/app.js';
import { spawnServer, type ServerProcess } from '../helpers/process.js';
import { formB } from '../orders/support.js';

const CLIENTS = 5;
const GRACE_MS = 4000;
const env = (dataDir: string) => ({ DATA_DIR: dataDir, RATE_LIMIT_PER_MIN: '1000000', SHUTDOWN_GRACE_MS: String(GRACE_MS), LOG_LEVEL: 'info' });

interface Answer {
  status: number;
  connection: string | undefined;
  retryAfter: string | undefined;
  body: string;
}

/** One request on the agent's socket: its answer, or the error code the client saw. */
function send(agent: Agent, url: string, options: { method: string; path: string; headers: Record<string, string>; body?: unknown }): Promise<Answer | { error: string }> {
  return new Promise((resolve) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = request(`${url}${options.path}`, {
      agent,
      method: options.method,
      headers: { ...options.headers, ...(body !== undefined && { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }) },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, retryAfter: res.headers['retry-after'] as string | undefined, body: text }));
      res.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    req.end(body);
  });
}

describe('SIGTERM with keep-alive clients sending requests continuously', () => {
  let dataDir: string;
  let merchant: MerchantCredentials;
  let node: ServerProcess;
  /** idempotency key → booking id, for every create answered 2xx. */
  const acknowledged = new Map<string, string>();

  beforeAll(async () => {
    dataDir = makeDataDir();
    const container = await buildContainer(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', SEED_DEMO: 'false', SANDBOX_SIMULATOR: 'false' }));
    merchant = await container.services.admin.createMerchant({ input: { name: 'Drain Shop', address: 'Av. Providencia 1234, Providencia' } });
    await container.close();
    node = await spawnServer(env(dataDir), { startTimeoutMs: 60_000 });
  }, 90_000);
  afterAll(async () => {
    if (node && node.child.exitCode === null && node.child.signalCode === null) await node.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers or refuses every request (never a reset), closes keep-alive connections with Connection: close, exits within the grace + 1 s', async () => {
    const auth = { authorization: `Bearer ${merchant.testKey}` };
    let signalled = false;
    const answersAfterSignal: Answer[] = [];
    const failures: string[] = [];
    const lastAnswers: (Answer | undefined)[] = [];

    const client = async (c: number) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      let lastBooking: string | undefined;
      try {
        for (let i = 0; i < 100_000; i++) {
          const key = `drain-${c}-${i}`;
          const kind = i % 4;
          const outcome =
            kind === 0 || !lastBooking
              ? await send(agent, node.url, { method: 'POST', path: '/api/v1/orders', headers: { ...auth, 'idempotency-key': key }, body: formB({ order_notes: key }) })
              : kind === 1
                ? await send(agent, node.url, { method: 'GET', path: `/api/v1/orders/${lastBooking}`, headers: auth })
                : kind === 2
                  ? await send(agent, node.url, { method: 'GET', path: '/api/v1/orders?limit=5', headers: auth })
                  : await send(agent, node.url, { method: 'POST', path: '/graphql', headers: auth, body: { query: '{ __typename }' } });
          if ('error' in outcome) {
            // Refused: the request never reached the node (it stopped listening). Anything else is a reset.
            if (outcome.error !== 'ECONNREFUSED') failures.push(`client ${c} request ${i}: ${outcome.error}${signalled ? ' after SIGTERM' : ' before SIGTERM'}`);
            return;
          }
          if (signalled) answersAfterSignal.push(outcome);
          lastAnswers[c] = outcome;
          if (outcome.status === 503) {
            expect(outcome.retryAfter, outcome.body).toMatch(/^\d+$/);
            expect(JSON.parse(outcome.body)).toMatchObject(kind === 3 ? { errors: [{ extensions: { code: 'SERVICE_UNAVAILABLE' } }] } : { success: false, error: { code: 'SERVICE_UNAVAILABLE' } });
            continue;
          }
          if (outcome.status < 200 || outcome.status > 299) failures.push(`client ${c} request ${i}: ${outcome.status} ${outcome.body.slice(0, 200)}`);
          if (kind === 0 || !lastBooking) {
            const booking = (JSON.parse(outcome.body) as { booking_id?: string }).booking_id;
            if (booking) {
              acknowledged.set(key, booking);
              lastBooking = booking;
            }
          }
        }
      } finally {
        agent.destroy();
      }
    };

    const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
    await new Promise((r) => setTimeout(r, 1500));
    const exited = new Promise<number>((resolve) => node.child.once('exit', () => resolve(performance.now())));
    const signalledAt = performance.now();
    signalled = true;
    node.child.kill('SIGTERM');
    await Promise.all(clients);
    const exitedAt = await exited;

    const closing = answersAfterSignal.filter((a) => a.connection === 'close').length;
    const refused = answersAfterSignal.filter((a) => a.status === 503).length;
    console.info(`SIGTERM drain: exit after ${Math.round(exitedAt - signalledAt)} ms (grace ${GRACE_MS} ms); ${answersAfterSignal.length} answers after the signal (${closing} with Connection: close, ${refused} refused 503); ${acknowledged.size} orders acknowledged; ${failures.length} resets`);
    expect(failures).toEqual([]);
    expect(node.child.exitCode).toBe(0);
    expect(exitedAt - signalledAt).toBeLessThan(GRACE_MS + 1000);
    expect(acknowledged.size).toBeGreaterThan(CLIENTS);
    // Each client was told to close: its last answer ended its connection, the next found no listener.
    for (let c = 0; c < CLIENTS; c++) expect(lastAnswers[c]?.connection, `client ${c}`).toBe('close');
    expect(answersAfterSignal.length).toBeGreaterThanOrEqual(CLIENTS);
  }, 60_000);

  it('after a restart every acknowledged order is there', async () => {
    node = await spawnServer(env(dataDir), { startTimeoutMs: 60_000 });
    for (const [key, bookingId] of acknowledged) {
      const res = await api(`${node.url}/api/v1/orders/${bookingId}`, { key: merchant.testKey });
      expect(res.status, key).toBe(200);
      expect(res.body.order_notes).toBe(key);
    }
    expect(await node.terminate()).toBe(0);
  }, 60_000);
});
