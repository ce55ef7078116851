import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/** What a connection is doing: requests in flight, and whether it became a WebSocket. */
interface Connection {
  active: number;
  upgraded: boolean;
}

export interface HttpDrain {
  /** Whether the drain has begun. */
  readonly draining: boolean;
  /**
   * Called first for every request. While draining, the response closes its connection
   * (`Connection: close`); near the end of the grace the request is refused instead (false: the
   * caller answers 503 with Retry-After and does nothing else).
   */
  admit(req: IncomingMessage, res: ServerResponse): boolean;
  /**
   * Stops accepting connections and drains the open ones: each connection closes right after its
   * next response (which says `Connection: close`); a keep-alive connection that sends nothing is
   * left open until `idleCloseFromMs` into the grace, then closed. Resolves when every connection
   * has ended, or at the end of the grace, when the ones left are cut.
   */
  drain(): Promise<void>;
}

/** When, into the grace, the drain refuses new requests and closes the connections that stayed idle (see createHttpDrain). */
export const drainTimings = (graceMs: number) => ({
  /** New requests from this far into the grace are refused: what is left of it is for those in flight. */
  refuseFromMs: graceMs - Math.min(2000, graceMs / 4),
  /** Keep-alive connections with nothing in flight are closed from this far into the grace. */
  idleCloseFromMs: graceMs - Math.min(1000, graceMs / 8),
});

/**
 * Graceful drain of one node:http server that keep-alive clients can follow (issue #25 item 6,
 * issue #41 item 3). Closing an idle keep-alive connection races with the client's next request on
 * it: a request sent as the close arrives is reset, neither answered nor known to be unsent. So the
 * drain closes a connection only after a response that said `Connection: close` (the client knows
 * not to reuse it) — every request during the drain gets one — and leaves idle keep-alive
 * connections open for most of the grace: a client that sends again within it is answered; only
 * one that stayed silent nearly the whole grace finds its connection closed (at `idleCloseFromMs`),
 * which a keep-alive client must expect of a long-idle connection anyway.
 */
export function createHttpDrain(options: { server: Server; graceMs: number; now?: () => number }): HttpDrain {
  const { server, graceMs } = options;
  const now = options.now ?? Date.now;
  const { idleCloseFromMs, refuseFromMs } = drainTimings(graceMs);
  const connections = new Map<Socket, Connection>();
  const inFlight = new Set<ServerResponse>();
  let drainStartedAt = 0;

  server.on('connection', (socket: Socket) => {
    connections.set(socket, { active: 0, upgraded: false });
    socket.once('close', () => connections.delete(socket));
  });
  server.on('upgrade', (req: IncomingMessage) => {
    const connection = connections.get(req.socket);
    if (connection) connection.upgraded = true;
  });

  function ended(connection: Connection | undefined, res: ServerResponse): void {
    inFlight.delete(res);
    if (connection) connection.active--;
  }

  /** Late in the grace: the connections with nothing in flight are closed (before that, never). */
  function sweepIdle(): void {
    if (now() - drainStartedAt < idleCloseFromMs) return;
    for (const [socket, connection] of connections) {
      if (!connection.upgraded && connection.active === 0) socket.destroy();
    }
  }

  return {
    get draining() {
      return drainStartedAt > 0;
    },

    admit(req, res) {
      const connection = connections.get(req.socket);
      if (drainStartedAt > 0) {
        // Connection: close, and node ends the connection once this response is flushed.
        res.shouldKeepAlive = false;
        if (connection) connection.active++;
        res.on('close', () => ended(connection, res));
        return now() - drainStartedAt < refuseFromMs;
      }
      if (connection) connection.active++;
      inFlight.add(res);
      // One plain listener: the response object ends with its request.
      res.on('close', () => ended(connection, res));
      return true;
    },

    drain() {
      drainStartedAt = now();
      // Only the listening socket: http.Server#close would also destroy the idle connections. At
      // once, before any answer of the drain tells a client to reconnect: a connection queued by
      // the kernel when the listener closes is reset (one that comes after is refused).
      NetServer.prototype.close.call(server);
      for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
      return new Promise<void>((resolve) => {
        const sweeper = setInterval(() => {
          sweepIdle();
          if (connections.size === 0) finish();
        }, 50);
        const cut = setTimeout(() => {
          for (const socket of connections.keys()) socket.destroy();
          finish();
        }, graceMs);
        function finish() {
          clearInterval(sweeper);
          clearTimeout(cut);
          resolve();
        }
        sweepIdle();
        if (connections.size === 0) finish();
      });
    },
  };
}
