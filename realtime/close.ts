import { WebSocket } from 'ws';

/** How long a socket may take to answer our close frame before it is terminated. */
const CLOSE_GRACE_MS = 1000;

/** Closes with `code` and resolves once closed; a peer that does not answer within the grace is terminated. */
export function closeGracefully(ws: WebSocket, code: number, reason: string): Promise<void> {
  return new Promise<void>((resolve) => {
    if (ws.readyState === WebSocket.CLOSED) return resolve();
    const timer = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS);
    ws.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    ws.close(code, reason);
  });
}
