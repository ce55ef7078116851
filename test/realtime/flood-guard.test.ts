/**
 * The flood guard on a real ws server and client: a send buffer past the hard limit closes the
 * socket at the write that finds it (1008), not at the next heartbeat; unpaid messages past the
 * allowance close it with 4429; a library error is logged once per socket, as JSON at debug.
 */
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { FLOOD_CLOSE, guardSocket, UNPAID_MESSAGES, type FloodGuard } from '../../realtime/flood-guard.js';
import { memoryStream } from '../helpers/memory-log.js';
import { until } from './support.js';

const HARD = 64 * 1024;

async function pair() {
  const log = memoryStream();
  const logger = pino({ level: 'debug' }, log.stream);
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', autoPong: false });
  await new Promise((resolve) => wss.once('listening', resolve));
  const server = new Promise<{ ws: WebSocket; guard: FloodGuard }>((resolve) =>
    wss.once('connection', (ws) => resolve({ ws, guard: guardSocket(ws, { kind: 'test', hardBufferBytes: HARD, logger, account: () => '127.0.0.1', takeSharedUnpaid: () => true }) })),
  );
  const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
  client.on('error', () => {});
  await new Promise((resolve) => client.once('open', resolve));
  const closed = new Promise<number>((resolve) => client.once('close', (code) => resolve(code)));
  opened.push({ wss, client });
  return { ...(await server), client, closed, log: log.text };
}
const opened: Array<{ wss: WebSocketServer; client: WebSocket }> = [];
afterEach(async () => {
  for (const { wss, client } of opened.splice(0)) {
    client.terminate();
    await new Promise((resolve) => wss.close(resolve));
  }
});

describe('flood guard', () => {
  it('closes a socket whose peer does not read as soon as a write finds the buffer past the hard limit', async () => {
    const { ws, guard, client, log } = await pair();
    (client as unknown as { _socket: { pause(): void } })._socket.pause();
    const chunk = Buffer.alloc(16 * 1024, 'x').toString();
    let written = 0;
    // The kernel's buffers take a few MB first; then ws buffers and the guard stops at the limit.
    while (guard.send(chunk)) {
      written++;
      if (written % 64 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      expect(written).toBeLessThan(100_000);
    }
    expect(ws.readyState).not.toBe(WebSocket.OPEN);
    expect(ws.bufferedAmount).toBeLessThanOrEqual(HARD + chunk.length + 64);
    expect(guard.send(chunk)).toBe(false);
    expect(log()).toContain('"code":1008');
    // The peer never answers the close frame: terminated within the grace.
    await until(() => ws.readyState === WebSocket.CLOSED, 'the socket to be terminated', 5000);
  });

  it('answers pings from the unpaid allowance, then closes with 4429', async () => {
    const { client, closed } = await pair();
    let pongs = 0;
    client.on('pong', () => pongs++);
    for (let i = 0; i < UNPAID_MESSAGES.perSocket * 3; i++) client.ping();
    expect(await closed).toBe(FLOOD_CLOSE.tooManyMessages);
    expect(pongs).toBe(UNPAID_MESSAGES.perSocket);
  });

  it('logs library errors once per socket, as JSON at debug', async () => {
    const { guard, log } = await pair();
    for (let i = 0; i < 1000; i++) guard.failed(new Error('WebSocket is not open: readyState 3 (CLOSED)'));
    const lines = log().trim().split('\n').map((line) => JSON.parse(line) as { level: number; msg: string; err: string });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 20, msg: 'socket error', err: 'WebSocket is not open: readyState 3 (CLOSED)' });
  });
});
