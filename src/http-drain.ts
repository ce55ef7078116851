import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/** What a connection is doing: requests in flight, and since when it has had none. */
interface Connection {
  active: number;
  idleSince: number;
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
   * Stops accepting connections and drains the open ones: a response in progress closes its
   * connection when done, an idle keep-alive connection is closed once it has been idle for
   * `idleCloseMs`. Resolves when every connection has ended, or at the end of the grace, when the
   * ones left are cut.
   */
  drain(): Promise<void>;
}

/** How long a keep-alive connection must have been idle before the drain closes it (see createHttpDrain). */
export const drainTimings = (graceMs: number) => ({
  idleCloseMs: Math.min(300, graceMs / 4),
  /** New requests from this far into the grace are refused: what is left of it is for those in flight. */
  refuseFromMs: graceMs - Math.min(2000, graceMs / 4),
});

/**
 * Graceful drain of one node:http server that keep-alive clients can follow (issue #25 item 6).
 * Node's own `server.close()` destroys every idle keep-alive connection at once: a client that is
 * just sending its next request on one gets a reset, the request neither answered nor known to be
 * unsent. Here a connection is closed either by the server after a response that said
 * `Connection: close`, or once it has been idle for `idleCloseMs` (a client that is sending more
 * is not idle that long; one that waits longer has to expect a closed keep-alive socket anyway).
 */
export function createHttpDrain(options: { server: Server; graceMs: number; now?: () => number }): HttpDrain {
  const { server, graceMs } = options;
  const now = options.now ?? Date.now;
  const { idleCloseMs, refuseFromMs } = drainTimings(graceMs);
  const connections = new Map<Socket, Connection>();
  const inFlight = new Set<ServerResponse>();
  let drainStartedAt = 0;

  server.on('connection', (socket: Socket) => {
    connections.set(socket, { active: 0, idleSince: now(), upgraded: false });
    socket.once('close', () => connections.delete(socket));
  });
  server.on('upgrade', (req: IncomingMessage) => {
    const connection = connections.get(req.socket);
    if (connection) connection.upgraded = true;
  });

  function ended(connection: Connection | undefined, res: ServerResponse): void {
    inFlight.delete(res);
    if (!connection) return;
    connection.active--;
    connection.idleSince = now();
  }

  function sweepIdle(): void {
    const cutoff = now() - idleCloseMs;
    for (const [socket, connection] of connections) {
      if (!connection.upgraded && connection.active === 0 && connection.idleSince <= cutoff) socket.destroy();
    }
  }

  return {
    get draining() {
      return drainStartedAt > 0;
    },

    admit(req, res) {
      const connection = connections.get(req.socket);
      if (drainStartedAt > 0) {
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
      // Only the listening socket: http.Server#close would also destroy the idle connections.
      NetServer.prototype.close.call(server);
      for (const res of inFlight) if (!res.headersSent) res.shouldKeepAlive = false;
      return new Promise<void>((resolve) => {
        const sweeper = setInterval(() => {
          sweepIdle();
          if (connections.size === 0) finish();
        }, Math.max(10, Math.min(100, idleCloseMs / 2)));
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
