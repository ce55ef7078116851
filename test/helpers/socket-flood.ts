/**
 * Flooding WebSocket clients (issue #26): a socket that sends one frame as fast as the server
 * takes it, and either never reads what the server answers (its TCP socket paused once the
 * handshake is done) or reads and counts it. Used by test/realtime/socket-flood.test.ts and
 * bench/socket-flood.ts.
 */
import { readFileSync } from 'node:fs';
import { WebSocket } from 'ws';

export interface FloodOptions {
  url: string;
  protocol?: string;
  headers?: Record<string, string>;
  /** Sent once open (graphql-ws's connection_init); the flood starts with the first frame received. */
  init?: string;
  /** A text frame (or a function making each one), or `ping` for WebSocket ping control frames. */
  frame: string | (() => string);
  /** Whether the client reads what the server sends (false: its TCP socket is paused, as a client that never reads). */
  read: boolean;
  durationMs: number;
}

export interface FloodResult {
  sent: number;
  /** Frames received after the flood started (counted only when reading). */
  received: number;
  /** The close code the client saw (1006: the connection ended without a close frame it read), and when, in ms after the flood started; null: still open at the end. */
  closed: { code: number; afterMs: number } | null;
}

const CLIENT_BUFFER_BYTES = 256 * 1024;
const FRAMES_PER_TURN = 500;

/** Opens one socket, floods it for `durationMs` (or until it closes), then terminates it. */
export async function flood(options: FloodOptions): Promise<FloodResult> {
  const ws = new WebSocket(options.url, options.protocol, { headers: options.headers ?? {} });
  ws.on('error', () => {});
  let received = 0;
  let startedAt = 0;
  const ended = new Promise<{ code: number; afterMs: number }>((resolve) => ws.once('close', (code) => resolve({ code, afterMs: Date.now() - startedAt })));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => {
      if (options.init) ws.send(options.init);
      else resolve();
    });
    ws.once('message', () => resolve());
    ws.once('close', (code) => reject(new Error(`closed (${code}) before the flood started`)));
  });
  ws.on('message', () => received++);
  ws.on('pong', () => received++);
  if (!options.read) (ws as unknown as { _socket: { pause(): void } })._socket.pause();
  startedAt = Date.now();
  let sent = 0;
  const deadline = startedAt + options.durationMs;
  await new Promise<void>((resolve) => {
    const pump = () => {
      if (ws.readyState !== WebSocket.OPEN || Date.now() >= deadline) return resolve();
      for (let i = 0; i < FRAMES_PER_TURN && ws.bufferedAmount < CLIENT_BUFFER_BYTES; i++, sent++) {
        if (options.frame === 'ping') ws.ping();
        else ws.send(typeof options.frame === 'string' ? options.frame : options.frame());
      }
      if (ws.bufferedAmount >= CLIENT_BUFFER_BYTES) setTimeout(pump, 2);
      else setImmediate(pump);
    };
    pump();
  });
  const byServer = ws.readyState !== WebSocket.OPEN;
  if (!byServer) ws.terminate();
  const closed = await ended;
  return { sent, received, closed: byServer ? closed : null };
}

/** The resident set size of a process, in bytes (Linux /proc). */
export function rssBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}
