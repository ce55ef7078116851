import { WebSocket } from 'ws';
import type { Logger } from '../src/logger.js';
import { createUnpaidWindows, UNPAID_MESSAGES } from '../src/edge/unpaid-messages.js';
import { closeGracefully } from './close.js';

/**
 * Close codes every socket kind uses for a peer that makes the server buffer or answer too much:
 * more unpaid messages in a window than allowed (4429), a send buffer past its hard limit (1008).
 */
export const FLOOD_CLOSE = { tooManyMessages: 4429, notReading: 1008 } as const;

export { UNPAID_MESSAGES };

export interface FloodGuard {
  /**
   * Writes `data` unless the socket is closing; a socket whose send buffer is past the hard limit is
   * closed (1008) instead, and nothing more is written to it. `done` is called once the data is
   * written or dropped (never with an error: a failed write is logged once per socket). Returns
   * whether the data was written.
   */
  send(data: string | Buffer, done?: () => void): boolean;
  /** Takes one unpaid message from the socket's allowance and its account's (address or credential); false (and the socket closing with 4429) once either is spent. */
  takeUnpaid(): boolean;
  /** A library error on this socket (a failed write, a protocol error): logged once per socket, at debug. */
  failed(error: unknown): void;
}

/**
 * Bounds what one peer can make the server hold for it: every write looks at the send buffer, and
 * protocol pings are answered from the unpaid allowance (the server must be created with
 * `autoPong: false`). `kind` names the socket in the log.
 */
export function guardSocket(
  ws: WebSocket,
  options: {
    kind: string;
    hardBufferBytes: number;
    logger: Logger;
    /** Whose shared allowance the socket draws from too: its address, or its credential once identified. */
    account: () => string;
    takeSharedUnpaid: (account: string) => boolean;
  },
): FloodGuard {
  const { kind, hardBufferBytes, logger, account } = options;
  const unpaid = createUnpaidWindows(UNPAID_MESSAGES.perSocket);
  let logged = false;

  const shut = (code: number, reason: string) => {
    if (ws.readyState !== WebSocket.OPEN) return;
    logger.debug({ socket: kind, code, bufferedBytes: ws.bufferedAmount }, `socket closed: ${reason}`);
    void closeGracefully(ws, code, reason);
  };

  /** Whether the socket is open with room in its send buffer; past the hard limit it is closed. */
  const writable = () => {
    if (ws.readyState !== WebSocket.OPEN) return false;
    if (ws.bufferedAmount <= hardBufferBytes) return true;
    shut(FLOOD_CLOSE.notReading, 'send buffer full');
    return false;
  };

  const guard: FloodGuard = {
    send(data, done) {
      if (!writable()) {
        done?.();
        return false;
      }
      ws.send(data, (error) => {
        if (error) guard.failed(error);
        done?.();
      });
      return true;
    },
    takeUnpaid() {
      if (ws.readyState !== WebSocket.OPEN) return false;
      if (unpaid.take('') && options.takeSharedUnpaid(account())) return true;
      shut(FLOOD_CLOSE.tooManyMessages, 'too many messages');
      return false;
    },
    failed(error) {
      if (logged) return;
      logged = true;
      logger.debug({ socket: kind, err: error instanceof Error ? error.message : String(error) }, 'socket error');
    },
  };

  ws.on('ping', (payload) => {
    if (guard.takeUnpaid() && writable()) ws.pong(payload, false, (error) => error && guard.failed(error));
  });
  ws.on('error', (error) => guard.failed(error));
  return guard;
}
