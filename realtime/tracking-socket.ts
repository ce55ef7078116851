import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { Edge } from '../src/edge/edge.js';
import { presentTracking } from '../src/edge/tracking.js';
import { isAppError } from '../src/domain/errors.js';
import { RateLimitedError } from '../src/domain/front-door.js';
import type { TrackingUpdate } from '../src/domain/tracking.js';
import type { Order } from '../src/domain/types.js';
import { closeGracefully } from './close.js';
import { FLOOD_CLOSE, guardSocket } from './flood-guard.js';
import { startHeartbeat } from './heartbeat.js';

const LIVE_PATH = /^\/api\/v1\/tracking\/([^/?#]{1,64})\/live\/?(?:\?.*)?$/;
/** Customers' pages send nothing; anything bigger than this closes the socket (1009). */
const MAX_CLIENT_PAYLOAD = 256;

export const TRACKING_CLOSE = {
  shuttingDown: 1001,
  internalError: 1011,
  serverBusy: 1013,
  notFound: 4404,
  tooManyConnections: 4429,
  ...FLOOD_CLOSE,
} as const;

interface TrackingClient {
  ws: WebSocket;
  ip: string;
  reference: string;
  /** The tracking number a valid capability (`?k=`) opened: budget and socket slot are the link's, not the address's. */
  link: string | null;
  /** Ends the client's watch (the domain pushes nothing before its first snapshot). */
  stop: (() => void) | null;
  /** Answered the last ping. */
  alive: boolean;
}

export type TrackingSockets = ReturnType<typeof attachTrackingSockets>;

/** The `k` query parameter of an upgrade URL (the capability), if any. */
function capabilityOf(url: string): string | null {
  const query = url.indexOf('?');
  return query < 0 ? null : new URLSearchParams(url.slice(query + 1)).get('k');
}

const frame = (message: object) => Buffer.from(JSON.stringify(message));

/** The wire frame of a domain update; updates are shared by every watcher of an order, so is the frame. */
const frames = new WeakMap<TrackingUpdate, Buffer>();
function frameOf(update: TrackingUpdate): Buffer {
  let data = frames.get(update);
  if (data) return data;
  if (update.type === 'snapshot') data = frame({ type: 'snapshot', tracking: presentTracking(update.view) });
  else if (update.type === 'status') data = frame({ type: 'status', status: update.status, at: update.at });
  else if (update.type === 'eta') data = frame({ type: 'eta', estimated_delivery_time: update.estimatedDeliveryAt, at: update.at });
  else data = frame({ type: 'position', lat: update.location.lat, lng: update.location.lng, at: update.at });
  frames.set(update, data);
  return data;
}

/**
 * The customer pages' live socket at /api/v1/tracking/{reference}/live: a snapshot of the public
 * view, then small JSON messages — `status` on every status change (followed by a fresh snapshot),
 * `eta` when the delivery estimate moved, and `position` for each courier report, as the domain's tracking watch pushes them (one indexed
 * fan-out per node feeds every socket). A socket whose send buffer passes the soft limit skips
 * positions; past the hard limit, or silent for a heartbeat, it is terminated, so a slow or dead
 * client never holds up the others. With a valid capability (`?k=`, issue #28) the connect draws
 * from that link's budget and the socket counts against the link; otherwise against the address.
 * Whatever a client sends (pings included) is an unpaid message
 * of the flood guard: past its allowance the socket is closed with 4429.
 */
export function attachTrackingSockets(options: { edge: Edge }) {
  const { edge } = options;
  const { tracking } = edge.services;
  const limits = edge.config.tracking;
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_PAYLOAD, perMessageDeflate: false, clientTracking: false, autoPong: false });
  const clients = new Set<TrackingClient>();
  const counters = { droppedPositions: 0, closedSlow: 0, closedDead: 0 };
  let connections = 0;
  let closing = false;

  function deliver(client: TrackingClient, data: Buffer, droppable: boolean): void {
    const { ws } = client;
    if (ws.readyState !== WebSocket.OPEN) return;
    if (ws.bufferedAmount > limits.hardBufferBytes) {
      counters.closedSlow++;
      ws.terminate();
    } else if (droppable && ws.bufferedAmount > limits.softBufferBytes) {
      counters.droppedPositions++;
    } else {
      ws.send(data, { binary: false });
    }
  }

  const heartbeat = startHeartbeat({ everyMs: limits.heartbeatMs, sockets: () => clients, onDead: () => counters.closedDead++ });

  function watch(client: TrackingClient, order: Order): void {
    client.stop = tracking.follow({
      order,
      reference: client.reference,
      onUpdate: (update) => deliver(client, frameOf(update), update.type === 'position'),
      // A client without its first snapshot has nothing to show: it reconnects and tries again.
      onFailure: () => client.ws.close(TRACKING_CLOSE.internalError, 'try again later'),
    });
  }

  function forget(client: TrackingClient): void {
    clients.delete(client);
    client.stop?.();
    client.stop = null;
  }

  async function admit(client: TrackingClient): Promise<void> {
    try {
      // Before the lookup: once the budget is spent, known and unknown references look alike.
      if (client.link) await edge.door.frontDoor.admitTrackingLink({ trackingNumber: client.link });
      else await edge.door.frontDoor.admit({ kind: 'anonymous', address: client.ip });
    } catch (error) {
      if (error instanceof RateLimitedError) return client.ws.close(TRACKING_CLOSE.tooManyConnections, 'rate limited');
      throw error;
    }
    let order: Order;
    try {
      order = await tracking.findTrackedOrder(client.reference);
    } catch (error) {
      if (isAppError(error) && error.code === 'ORDER_NOT_FOUND') return client.ws.close(TRACKING_CLOSE.notFound, 'unknown tracking reference');
      throw error;
    }
    if (client.ws.readyState === WebSocket.OPEN) watch(client, order);
  }

  /** Takes a connection slot for the raw socket; freed when it closes, upgraded or not. */
  function reserve(socket: Duplex, releaseAddressSlot: () => void): void {
    connections++;
    socket.once('close', () => {
      connections--;
      releaseAddressSlot();
    });
  }

  function refuse(req: IncomingMessage, socket: Duplex, head: Buffer, code: number, reason: string): void {
    wss.handleUpgrade(req, socket, head, (ws) => ws.close(code, reason));
  }

  return {
    handles: (url: string) => LIVE_PATH.test(url),

    handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
      if (closing) return void socket.destroy();
      const url = req.url ?? '';
      let reference: string;
      try {
        reference = decodeURIComponent(LIVE_PATH.exec(url)?.[1] ?? '');
      } catch {
        reference = '';
      }
      const ip = edge.door.addressOf(req);
      // A capability link's socket counts against that link (sockets per credential), not the address.
      const link = edge.services.trackingLinks.openedBy({ reference, capability: capabilityOf(url) });
      if (connections >= limits.maxSockets) return refuse(req, socket, head, TRACKING_CLOSE.serverBusy, 'too many connections');
      // One count per address for every socket kind (graphql-ws ones included).
      const slot = link ? edge.door.sockets.takeCredentialSlot(`link:${link}`) : edge.door.sockets.takeAddressSlot(ip);
      if (!slot) return refuse(req, socket, head, TRACKING_CLOSE.tooManyConnections, link ? 'too many connections for this link' : 'too many connections from this address');
      reserve(socket, slot);
      const account = link ? `link:${link}` : ip;
      wss.handleUpgrade(req, socket, head, (ws) => {
        const client: TrackingClient = { ws, ip, reference, link, stop: null, alive: true };
        clients.add(client);
        const guard = guardSocket(ws, { kind: 'tracking', hardBufferBytes: limits.hardBufferBytes, logger: edge.logger, account: () => account, takeSharedUnpaid: edge.door.sockets.takeUnpaid });
        ws.on('message', () => guard.takeUnpaid());
        ws.on('pong', () => (client.alive = true));
        ws.on('error', () => ws.terminate());
        ws.on('close', () => forget(client));
        admit(client).catch((error: unknown) => {
          edge.logger.warn({ err: (error as Error).message }, 'tracking socket not admitted');
          ws.close(TRACKING_CLOSE.internalError, 'try again later');
        });
      });
    },

    stats: () => ({ sockets: clients.size, watchedOrders: tracking.watchedOrders(), ...counters }),

    /** Closes every socket with 1001 (terminating those that do not answer); each one's watch ends with it. */
    async close(): Promise<void> {
      closing = true;
      heartbeat.stop();
      await Promise.all([...clients].map(({ ws }) => closeGracefully(ws, TRACKING_CLOSE.shuttingDown, 'server shutting down')));
      wss.close();
    },
  };
}
