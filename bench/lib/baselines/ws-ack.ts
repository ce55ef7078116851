/**
 * Baseline: a plain `ws` server answering courier frames the way the courier socket does, with
 * nothing else — a `ready` frame on connect, then for each frame JSON.parse and an `ack` with its id.
 * What any socket report costs at least (read, parse, one write), to set the app's socket beside.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { announcePort } from '../processes.js';

const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, clientTracking: false, maxPayload: 1024 });
const server = createServer((_req, res) => res.writeHead(404).end());
server.on('upgrade', (req, socket, head) => {
  if (!req.url?.startsWith('/api/v1/couriers/me/live')) return void socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
  wss.handleUpgrade(req, socket, head, (ws) => {
    ws.on('error', () => ws.terminate());
    ws.on('message', (raw) => {
      const frame = JSON.parse(String(raw)) as { id?: number };
      ws.send(JSON.stringify({ type: 'ack', id: frame.id, arrivals: [] }));
    });
    ws.send(JSON.stringify({ type: 'ready' }));
  });
});
server.listen(0, '127.0.0.1', () => announcePort((server.address() as AddressInfo).port));
process.on('SIGTERM', () => process.exit(0));
