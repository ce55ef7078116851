/**
 * Baseline: a plain `ws` server doing the tracking fan-out with nothing else. Subscribers connect to
 * /sub/<courier> and get a hello; couriers connect to /pub and send small JSON positions
 * ({courier, lat, lng}); each is re-encoded as the app's position frame and sent to the sockets
 * subscribed to that courier.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { announcePort } from '../processes.js';

const SUB_PATH = /^\/sub\/(\d+)$/;
const subscribers = new Map<number, Set<WebSocket>>();

const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, clientTracking: false, maxPayload: 1024 });
const server = createServer((_req, res) => res.writeHead(404).end());
server.on('upgrade', (req, socket, head) => {
  const url = req.url ?? '';
  const sub = SUB_PATH.exec(url);
  if (!sub && url !== '/pub') return void socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
  wss.handleUpgrade(req, socket, head, (ws) => {
    ws.on('error', () => ws.terminate());
    if (sub) {
      const courier = Number(sub[1]);
      let set = subscribers.get(courier);
      if (!set) subscribers.set(courier, (set = new Set()));
      set.add(ws);
      ws.on('close', () => set.delete(ws));
      ws.send(JSON.stringify({ type: 'hello' }));
      return;
    }
    ws.on('message', (raw) => {
      const message = JSON.parse(String(raw)) as { courier: number; lat: number; lng: number };
      const watchers = subscribers.get(message.courier);
      if (!watchers) return;
      const data = Buffer.from(JSON.stringify({ type: 'position', lat: message.lat, lng: message.lng, at: new Date().toISOString() }));
      for (const client of watchers) if (client.readyState === WebSocket.OPEN) client.send(data, { binary: false });
    });
  });
});
server.listen(0, '127.0.0.1', () => announcePort((server.address() as AddressInfo).port));
process.on('SIGTERM', () => process.exit(0));
