import { WebSocket } from 'ws';

/** Pings sent before letting I/O run: one loop over 20,000 sockets would hold every frame ~150 ms. */
const PINGS_PER_SLICE = 500;

export interface Heartbeat {
  stop(): void;
}

/**
 * Every `everyMs`, terminates the sockets that did not answer the previous ping (`onDead` first)
 * and pings the others, a slice at a time. `alive` is set back to true by the caller on 'pong'.
 */
export function startHeartbeat<T extends { ws: WebSocket; alive: boolean }>(options: {
  everyMs: number;
  sockets: () => Iterable<T>;
  onDead?: (socket: T) => void;
  /** Terminated too (e.g. a send buffer past its hard limit). */
  isStuck?: (socket: T) => boolean;
}): Heartbeat {
  let running = false;
  async function beat(): Promise<void> {
    let sent = 0;
    for (const socket of [...options.sockets()]) {
      if (socket.ws.readyState !== WebSocket.OPEN) continue;
      if (!socket.alive || options.isStuck?.(socket)) {
        options.onDead?.(socket);
        socket.ws.terminate();
        continue;
      }
      socket.alive = false;
      socket.ws.ping();
      if (++sent % PINGS_PER_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  }
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void beat().finally(() => (running = false));
  }, options.everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
