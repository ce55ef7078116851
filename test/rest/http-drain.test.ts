/**
 * The drain of src/http-drain.ts on a real node:http server and raw keep-alive connections: what a
 * client sees on its connection when the node starts draining. The whole process under SIGTERM is
 * test/chaos/sigterm-drain.test.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpDrain, drainTimings, type HttpDrain } from '../../src/http-drain.js';

interface Harness {
  server: Server;
  drain: HttpDrain;
  port: number;
  /** Resolves a held request (`/hold`: answered once released; `/stream`: headers at once, the end once released). */
  release: () => void;
  held: Promise<void>;
}

async function startServer(options: { graceMs: number; now?: () => number }): Promise<Harness> {
  let release!: () => void;
  let entered!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const held = new Promise<void>((resolve) => (entered = resolve));
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (!drain.admit(req, res)) {
      res.writeHead(503, { 'Retry-After': '2', 'Content-Type': 'text/plain' });
      return res.end('refused');
    }
    if (req.url === '/hold') {
      entered();
      return void gate.then(() => res.end('held'));
    }
    if (req.url === '/stream') {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('start ');
      entered();
      return void gate.then(() => res.end('end'));
    }
    res.end('ok');
  });
  const drain = createHttpDrain({ server, ...options });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, drain, port: (server.address() as AddressInfo).port, release, held };
}

/** A raw connection that records what it receives and whether it was closed or reset. */
function rawClient(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  const state = { text: '', closed: false, error: null as string | null };
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (state.text += chunk));
  socket.on('error', (error: NodeJS.ErrnoException) => (state.error = error.code ?? error.message));
  socket.on('close', () => (state.closed = true));
  const ready = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, state, ready, send: (text: string) => socket.write(text) };
}

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`;

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('HTTP drain (src/http-drain.ts)', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  it('keep-alive answers before the drain; then an answer in flight says Connection: close, and an idle connection is closed without a reset', async () => {
    const h = await startServer({ graceMs: 2000 });
    cleanups.push(() => h.server.close());
    const idle = rawClient(h.port);
    const busy = rawClient(h.port);
    await Promise.all([idle.ready, busy.ready]);
    idle.send(get('/'));
    await until(() => idle.state.text.endsWith('ok'), 'the first answer');
    expect(idle.state.text).toMatch(/\r\nConnection: keep-alive\r\n/i);

    busy.send(get('/hold'));
    await h.held;
    const drained = h.drain.drain();
    expect(h.drain.draining).toBe(true);
    h.release();
    await until(() => busy.state.closed, 'the busy connection to close after its answer');
    expect(busy.state.text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(busy.state.text).toMatch(/\r\nConnection: close\r\n/i);
    expect(busy.state.text.endsWith('held')).toBe(true);

    await until(() => idle.state.closed, 'the idle keep-alive connection to be closed');
    expect(idle.state.error).toBeNull();
    await drained;
  });

  /**
   * One connection: a streaming answer is held while the drain starts, the clock moves `afterMs`
   * into the grace, a second request arrives on the same connection; returns both answers' text.
   */
  async function secondRequestDuringDrain(afterMs: number): Promise<{ first: string; second: string; error: string | null }> {
    let clock = 1_000_000;
    const h = await startServer({ graceMs: GRACE_MS, now: () => clock });
    cleanups.push(() => h.server.close());
    const client = rawClient(h.port);
    await client.ready;
    // The answer to the first request is streaming (its headers said keep-alive) when the second arrives.
    client.send(get('/stream'));
    await h.held;
    const drained = h.drain.drain();
    clock += afterMs;
    client.send(get('/'));
    await new Promise((r) => setTimeout(r, 100));
    h.release();
    await until(() => client.state.closed, 'the connection to close');
    await drained;
    const [first = '', second = ''] = client.state.text.split(/(?=HTTP\/1\.1 )/);
    return { first, second, error: client.state.error };
  }
  const GRACE_MS = 10_000;

  it('a request that arrives on an open connection late in the grace is refused with 503 and Retry-After, and the connection closes', async () => {
    const { first, second, error } = await secondRequestDuringDrain(drainTimings(GRACE_MS).refuseFromMs + 1);
    expect(first).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(second).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(second).toMatch(/\r\nRetry-After: 2\r\n/i);
    expect(second).toMatch(/\r\nConnection: close\r\n/i);
    expect(error).toBeNull();
  });

  it('a request early in the drain is served (with Connection: close), not refused', async () => {
    const { second } = await secondRequestDuringDrain(1000);
    expect(second).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(second).toMatch(/\r\nConnection: close\r\n/i);
  });

  it('an idle keep-alive connection stays open into the drain: its next request is served with Connection: close, then it closes, never reset', async () => {
    let clock = 1_000_000;
    const h = await startServer({ graceMs: GRACE_MS, now: () => clock });
    cleanups.push(() => h.server.close());
    const client = rawClient(h.port);
    await client.ready;
    client.send(get('/'));
    await until(() => client.state.text.endsWith('ok'), 'the keep-alive answer');
    const drained = h.drain.drain();
    // Idle well past any short idle timeout, and some way into the grace: still open.
    clock += drainTimings(GRACE_MS).refuseFromMs / 2;
    await new Promise((r) => setTimeout(r, 500));
    expect(client.state.closed).toBe(false);
    client.send(get('/'));
    await until(() => client.state.closed, 'the connection to close after its answer');
    await drained;
    const [, second = ''] = client.state.text.split(/(?=HTTP\/1\.1 )/);
    expect(second).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(second).toMatch(/\r\nConnection: close\r\n/i);
    expect(second.endsWith('ok')).toBe(true);
    expect(client.state.error).toBeNull();
  });

  it('a keep-alive connection that sends nothing is closed only near the end of the grace', async () => {
    let clock = 1_000_000;
    const h = await startServer({ graceMs: GRACE_MS, now: () => clock });
    cleanups.push(() => h.server.close());
    const client = rawClient(h.port);
    await client.ready;
    client.send(get('/'));
    await until(() => client.state.text.endsWith('ok'), 'the keep-alive answer');
    const drained = h.drain.drain();
    clock += drainTimings(GRACE_MS).idleCloseFromMs - 1;
    await new Promise((r) => setTimeout(r, 300));
    expect(client.state.closed).toBe(false);
    clock += 1;
    await until(() => client.state.closed, 'the idle connection to be closed');
    expect(client.state.error).toBeNull();
    await drained;
  });

  it('stops listening at once: a new connection is refused', async () => {
    const h = await startServer({ graceMs: 2000 });
    await h.drain.drain();
    const late = rawClient(h.port);
    await until(() => late.state.closed, 'the refused connection');
    expect(late.state.error).toBe('ECONNREFUSED');
  });

  it('the grace bounds the drain: a connection still busy at its end is cut', async () => {
    const h = await startServer({ graceMs: 300 });
    cleanups.push(() => h.release());
    const client = rawClient(h.port);
    await client.ready;
    client.send(get('/hold'));
    await h.held;
    await h.drain.drain();
    await until(() => client.state.closed, 'the cut connection');
  });
});
