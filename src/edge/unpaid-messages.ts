/**
 * Messages a socket may send that no budget pays for: protocol pings and pongs (WebSocket control
 * frames and graphql-ws's own), frames that are refused (each one's error reply), and anything a
 * socket that expects nothing sends. Counted per socket and over every socket of one account — the
 * address of an anonymous socket, the credential of an identified one — per node, as the socket
 * slots are; past either the socket is closed (4429). The server's own heartbeat pongs are not counted.
 */
export const UNPAID_MESSAGES = { perSocket: 100, perAccount: 400, windowMs: 10_000 } as const;

/** Fixed-window counters by key; windows that ended are dropped once a window, so idle keys cost nothing. */
export function createUnpaidWindows(perWindow: number, windowMs: number = UNPAID_MESSAGES.windowMs) {
  const windows = new Map<string, { start: number; count: number }>();
  let sweptAt = Date.now();
  return {
    /** Counts one message for `key`; false once the key's window is spent. */
    take(key: string): boolean {
      const now = Date.now();
      if (now - sweptAt >= windowMs) {
        for (const [k, w] of windows) if (now - w.start >= windowMs) windows.delete(k);
        sweptAt = now;
      }
      let window = windows.get(key);
      if (!window || now - window.start >= windowMs) windows.set(key, (window = { start: now, count: 0 }));
      return ++window.count <= perWindow;
    },
    size: () => windows.size,
  };
}
