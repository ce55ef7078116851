/**
 * The webhook sender's connections: kept alive and reused, a reused connection that fails at once
 * is retried once on a new one, and the sandbox's pool (which may reach private
 * addresses) never carries a live delivery.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpWebhookSender } from '../../src/adapters/http/webhook-sender.js';
import type { WebhookReach } from '../../src/ports/webhook-sender.js';

interface Receiver {
  server: Server;
  port: number;
  connections: number;
  requests: number;
}

async function startReceiver(): Promise<Receiver> {
  const receiver = { connections: 0, requests: 0 } as Receiver;
  receiver.server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      receiver.requests++;
      res.writeHead(204).end();
    });
  });
  receiver.server.on('connection', () => receiver.connections++);
  receiver.server.listen(0, '127.0.0.1');
  await once(receiver.server, 'listening');
  receiver.port = (receiver.server.address() as AddressInfo).port;
  return receiver;
}

const opened: Array<{ close(): void }> = [];
afterEach(async () => {
  for (const thing of opened.splice(0)) thing.close();
});

const sendTo = (sender: ReturnType<typeof createHttpWebhookSender>, url: string, allowPrivate: boolean, reach: WebhookReach = allowPrivate ? "private" : "public") =>
  sender.send({ url, body: '{"type":"order.status_changed"}', headers: { 'content-type': 'application/json' }, timeoutMs: 2000, reach });

describe('webhook sender connections', () => {
  it('deliveries to one receiver, one after another, share one kept-alive connection', async () => {
    const receiver = await startReceiver();
    const sender = createHttpWebhookSender();
    opened.push(sender, { close: () => receiver.server.close() });
    for (let i = 0; i < 5; i++) expect(await sendTo(sender, `http://127.0.0.1:${receiver.port}/hooks`, true)).toMatchObject({ statusCode: 204 });
    expect(receiver.requests).toBe(5);
    expect(receiver.connections).toBe(1);
  });

  it('a kept-alive connection the receiver drops when reused is replaced once: the delivery succeeds on a new one', async () => {
    // Answers the first request of each connection (keep-alive), drops the connection at the second.
    let connections = 0;
    let answered = 0;
    const server = createNetServer((socket) => {
      connections++;
      let requests = 0;
      socket.on('data', (chunk) => {
        if (!chunk.toString('latin1').includes('\r\n\r\n')) return;
        if (++requests > 1) return void socket.destroy();
        answered++;
        socket.write('HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\n\r\n');
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const sender = createHttpWebhookSender();
    opened.push(sender, { close: () => server.close() });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    expect(await sendTo(sender, url, true)).toMatchObject({ statusCode: 204 });
    expect(await sendTo(sender, url, true)).toMatchObject({ statusCode: 204 });
    expect({ connections, answered }).toEqual({ connections: 2, answered: 2 });
  });

  it('a live delivery never rides a connection the sandbox opened to a private address', async () => {
    const receiver = await startReceiver();
    const sender = createHttpWebhookSender();
    opened.push(sender, { close: () => receiver.server.close() });
    // `localhost` is a name, so only the connect-time check can refuse it for a live delivery.
    const url = `http://localhost:${receiver.port}/hooks`;
    expect(await sendTo(sender, url, true)).toMatchObject({ statusCode: 204 });
    expect(await sendTo(sender, url, false)).toEqual({ error: expect.stringMatching(/private address/), latencyMs: expect.any(Number) });
    expect(receiver.requests).toBe(1);
  });

  it('loopback reach: a receiver on this machine by name or address, never a private range or a live pool socket', async () => {
    const receiver = await startReceiver();
    const sender = createHttpWebhookSender();
    opened.push(sender, { close: () => receiver.server.close() });
    for (const url of [`http://localhost:${receiver.port}/hooks`, `http://127.0.0.1:${receiver.port}/hooks`]) {
      expect(await sendTo(sender, url, false, 'loopback')).toMatchObject({ statusCode: 204 });
      expect(await sendTo(sender, url, false, 'public')).toEqual({ error: expect.stringMatching(/private address/), latencyMs: expect.any(Number) });
    }
    for (const url of ['http://10.0.0.1/hooks', 'http://192.168.1.20/hooks', 'http://[fd00::1]/hooks', 'http://169.254.169.254/latest']) {
      expect(await sendTo(sender, url, false, 'loopback')).toEqual({ error: 'refused: private address', latencyMs: 0 });
    }
    expect(receiver.requests).toBe(2);
  });
});
