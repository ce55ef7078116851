import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { Edge } from '../src/edge/edge.js';
import { rateLimitHeaders } from '../src/edge/door.js';
import { upgradeFromSameOrigin } from '../src/edge/session-cookie.js';
import { reportPositionCommand } from '../src/edge/position-wire.js';
import { AppError, isAppError, presentError } from '../src/domain/errors.js';
import { inWireTerms } from '../src/edge/wire-errors.js';
import { RateLimitedError, type Caller } from '../src/domain/front-door.js';
import { isUnavailable } from '../src/ports/unavailable.js';
import type { Courier, Order } from '../src/domain/types.js';
import type { CourierJobUpdate } from '../src/domain/watch/courier-job.js';
import { closeGracefully } from './close.js';
import { FLOOD_CLOSE, guardSocket, type FloodGuard } from './flood-guard.js';
import { startHeartbeat } from './heartbeat.js';

const LIVE_PATH = /^\/api\/v1\/couriers\/me\/live\/?(?:\?.*)?$/;
/** A position frame is ~100 bytes; anything past this closes the socket (1009). */
const MAX_FRAME_BYTES = 16_384;
/** Fixes in one `positions` frame (a backlog kept on the phone through a dead zone). */
const MAX_BATCH = 50;
/** Frames waiting behind the one being handled; past this a frame is refused at once (RATE_LIMITED). */
const MAX_QUEUED_FRAMES = 8;

export const COURIER_SOCKET_CLOSE = { shuttingDown: 1001, forbidden: 4403, ...FLOOD_CLOSE } as const;

interface Session {
  ws: WebSocket;
  guard: FloodGuard;
  caller: Extract<Caller, { kind: 'courier' }>;
  /** Frames received and not yet answered (the one in hand included). */
  queued: number;
  /** The last frame's handling: frames are handled one after another, in order. */
  tail: Promise<void>;
  alive: boolean;
  release: () => void;
}

type Frame =
  | { type: 'ack'; id?: string | number; arrivals: Array<{ booking_id: string; status: string }>; applied?: number; stale?: number; implausible?: number }
  | { type: 'error'; id?: string | number; error: ReturnType<typeof presentError>['error'] }
  | { type: 'order'; booking_id: string; status: string | null; order: object | null }
  | { type: 'courier'; courier: { id: string; status: string } };

/** The order as the app reads it from GET /couriers/me/orders (the REST presenter, handed in by src/app.ts). */
export type PresentCourierOrder = (order: Order, courier: Courier) => object;

/** The frame's envelope: `type`, and `id` (optional) echoed in the answer; the rest is the report. */
/** The fixes of a `positions` frame: 1–MAX_BATCH, each with its `recorded_at`, in time order. */
function backlogOf(body: Record<string, unknown>): Array<Record<string, unknown>> {
  const { positions } = body;
  const refuse = (message: string) => new AppError('VALIDATION_ERROR', `positions ${message}`, { fields: [{ field: 'positions', message }] });
  if (!Array.isArray(positions) || positions.length === 0 || positions.length > MAX_BATCH) throw refuse(`must be an array of 1 to ${MAX_BATCH} fixes`);
  let last = -Infinity;
  for (const fix of positions as unknown[]) {
    const at = fix && typeof fix === 'object' ? Date.parse(String((fix as Record<string, unknown>).recorded_at)) : NaN;
    if (!Number.isFinite(at)) throw refuse('must each carry recorded_at');
    if (at < last) throw refuse('must be in time order (oldest first)');
    last = at;
  }
  return positions as Array<Record<string, unknown>>;
}

function readFrame(data: RawData, isBinary: boolean): { type: unknown; id: string | number | undefined; body: Record<string, unknown> } {
  if (isBinary) throw new AppError('VALIDATION_ERROR', 'Frames are JSON text');
  let message: unknown;
  try {
    message = JSON.parse(String(data));
  } catch {
    throw new AppError('VALIDATION_ERROR', 'Frame is not valid JSON');
  }
  if (!message || typeof message !== 'object' || Array.isArray(message)) throw new AppError('VALIDATION_ERROR', 'Frame must be a JSON object');
  const { type, id, ...body } = message as Record<string, unknown>;
  const echo = (typeof id === 'string' && id.length <= 64) || (typeof id === 'number' && Number.isSafeInteger(id)) ? id : undefined;
  if (id !== undefined && echo === undefined) throw new AppError('VALIDATION_ERROR', 'id must be a string of at most 64 characters or an integer', { fields: [{ field: 'id', message: 'invalid' }] });
  return { type, id: echo, body };
}

/** An HTTP answer on a socket that is not upgraded: the same status and error body as the REST API. */
function refuse(socket: Duplex, error: AppError, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(presentError(inWireTerms(error)));
  const lines = [`HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}`, 'Content-Type: application/json; charset=utf-8', `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close'];
  for (const name in headers) lines.push(`${name}: ${headers[name]}`);
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/**
 * The courier app's live socket at /api/v1/couriers/me/live: the courier token at connect
 * (`Authorization: Bearer ct_…`), then one JSON frame per position — the HTTP report's body plus
 * `"type": "position"` and an optional `id` — each answered in order with `ack` (and the arrivals it
 * marked) or `error` (the REST error body). Same validation, budget (COURIER_RATE_LIMIT_PER_MIN),
 * arrival and storage as POST /couriers/me/location, without an HTTP request per report. Closed with
 * 4403 when the token is rotated or the courier disabled, 1009 for an oversized frame; refused frames
 * are unpaid messages of the flood guard (4429 past its allowance, 1008 past the send buffer's limit).
 * The courier's job comes the other way as `order` frames (pushJob), so the app needs no polling.
 */
export function attachCourierSockets(options: { edge: Edge; presentOrder: PresentCourierOrder }) {
  const { edge, presentOrder } = options;
  const { door } = edge;
  const { couriers } = edge.services;
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false, clientTracking: false, autoPong: false });
  const sessions = new Set<Session>();
  const counters = { frames: 0, refusedFrames: 0 };
  let closing = false;

  const send = (session: Session, frame: Frame) => {
    // An error reply is paid by nobody: it draws from the socket's unpaid allowance.
    if (frame.type === 'error' && !session.guard.takeUnpaid()) return;
    session.guard.send(JSON.stringify(frame));
  };

  function errorOf(error: unknown): AppError {
    if (isAppError(error)) return error;
    if (isUnavailable(error)) return new AppError('SERVICE_UNAVAILABLE', 'A backing service is unavailable; retry shortly');
    edge.logger.error({ err: error }, 'courier socket frame failed');
    return new AppError('INTERNAL_ERROR', 'Internal error');
  }

  async function handle(session: Session, data: RawData, isBinary: boolean): Promise<void> {
    let id: string | number | undefined;
    try {
      const frame = readFrame(data, isBinary);
      id = frame.id;
      if (frame.type !== 'position' && frame.type !== 'positions') {
        throw new AppError('VALIDATION_ERROR', 'type must be "position" or "positions"', { fields: [{ field: 'type', message: 'must be "position" or "positions"' }] });
      }
      await door.frontDoor.admit(session.caller);
      const courierId = session.caller.courier.courier.id;
      if (frame.type === 'position') {
        const { arrivals } = await couriers.reportSessionPosition({ courierId, input: reportPositionCommand(frame.body) });
        return send(session, { type: 'ack', ...(id !== undefined && { id }), arrivals: arrivals.map((o) => ({ booking_id: o.id, status: o.status })) });
      }
      // A backlog, oldest first: every fix parsed before any is applied, then applied in order.
      const inputs = backlogOf(frame.body).map((fix) => reportPositionCommand(fix));
      const arrivals: Array<{ booking_id: string; status: string }> = [];
      let stale = 0;
      let implausible = 0;
      for (const input of inputs) {
        // A fix the courier could not have reached is left out; the rest of the backlog still applies.
        const reported = await couriers.reportSessionPosition({ courierId, input }).catch((error: unknown) => {
          if (error instanceof AppError && error.code === 'IMPLAUSIBLE_POSITION') return null;
          throw error;
        });
        if (!reported) implausible++;
        else if (reported.stale) stale++;
        for (const o of reported?.arrivals ?? []) arrivals.push({ booking_id: o.id, status: o.status });
      }
      send(session, { type: 'ack', ...(id !== undefined && { id }), arrivals, applied: inputs.length - stale - implausible, stale, ...(implausible > 0 && { implausible }) });
    } catch (error) {
      const appError = errorOf(error);
      counters.refusedFrames++;
      send(session, { type: 'error', ...(id !== undefined && { id }), error: presentError(inWireTerms(appError)).error });
      if (appError.code === 'INVALID_COURIER_TOKEN' || appError.code === 'INVALID_SESSION') session.ws.close(COURIER_SOCKET_CLOSE.forbidden, 'credentials no longer valid');
    }
  }

  function receive(session: Session, data: RawData, isBinary: boolean): void {
    if (session.ws.readyState !== WebSocket.OPEN) return;
    counters.frames++;
    if (session.queued >= MAX_QUEUED_FRAMES) {
      counters.refusedFrames++;
      const error = new AppError('RATE_LIMITED', `At most ${MAX_QUEUED_FRAMES} reports may wait for an answer; wait for the acks`);
      return send(session, { type: 'error', error: presentError(error).error });
    }
    session.queued++;
    session.tail = session.tail.then(() => handle(session, data, isBinary)).finally(() => session.queued--);
  }

  /**
   * The job pushed as `order` frames: each order the app would read differently now than in the
   * frame last sent (new, moved on, a new estimate), and each one it no longer holds (`order: null`);
   * then a `courier` frame when its status moved (busy with the job, available again).
   */
  function pushJob(session: Session): () => void {
    const shown = new Map<string, string>();
    let status: string = session.caller.courier.courier.status;
    return couriers.watchJob({
      courierId: session.caller.courier.courier.id,
      failed: (error) => edge.logger.warn({ err: (error as Error).message }, 'courier job read failed'),
      push: ({ courier, orders, gone }: CourierJobUpdate) => {
        if (session.ws.readyState !== WebSocket.OPEN) return;
        for (const { id, status } of gone) {
          shown.delete(id);
          send(session, { type: 'order', booking_id: id, status, order: null });
        }
        for (const order of orders) {
          const view = presentOrder(order, courier);
          const text = JSON.stringify(view);
          if (shown.get(order.id) === text) continue;
          shown.set(order.id, text);
          send(session, { type: 'order', booking_id: order.id, status: order.status, order: view });
        }
        if (courier.status !== status) {
          status = courier.status;
          send(session, { type: 'courier', courier: { id: courier.id, status } });
        }
      },
    });
  }

  const heartbeat = startHeartbeat({ everyMs: edge.config.tracking.heartbeatMs, sockets: () => sessions });

  function open(ws: WebSocket, caller: Session['caller'], credentials: ReturnType<typeof door.credentialsOf>, releaseSlot: () => void): void {
    const stopHolding = door.frontDoor.holdSession({ credentials, end: (reason) => ws.close(COURIER_SOCKET_CLOSE.forbidden, `credentials no longer valid: ${reason.code}`) });
    const stopSnapshot = couriers.holdSession({ courierId: caller.courier.courier.id });
    const guard = guardSocket(ws, { kind: 'courier', hardBufferBytes: edge.config.tracking.hardBufferBytes, logger: edge.logger, account: () => `courier:${caller.courier.courier.id}`, takeSharedUnpaid: door.sockets.takeUnpaid });
    let stopJob = () => {};
    const session: Session = { ws, guard, caller, queued: 0, tail: Promise.resolve(), alive: true, release: () => (stopHolding(), stopSnapshot(), stopJob(), releaseSlot()) };
    sessions.add(session);
    ws.on('pong', () => (session.alive = true));
    ws.on('error', () => ws.terminate());
    ws.on('close', () => {
      sessions.delete(session);
      session.release();
    });
    ws.on('message', (data, isBinary) => receive(session, data, isBinary));
    const { courier } = caller.courier;
    guard.send(JSON.stringify({ type: 'ready', courier: { id: courier.id, status: courier.status }, max_frame_bytes: MAX_FRAME_BYTES, max_batch: MAX_BATCH }));
    stopJob = pushJob(session);
  }

  async function admit(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const credentials = door.courierCredentialsOf(req);
    // The courier app's cookie rides on the socket only from a page of this server (issue #27).
    if (!credentials.token && credentials.courierSession && !upgradeFromSameOrigin(req)) {
      return refuse(socket, new AppError('FORBIDDEN', 'A socket signed in with the courier session cookie must come from this origin'));
    }
    let entered: { caller: Caller };
    try {
      entered = await door.frontDoor.enter(credentials, 'courier');
    } catch (error) {
      const appError = errorOf(error);
      return refuse(socket, appError, error instanceof RateLimitedError ? rateLimitHeaders(error.decision) : appError.code === 'SERVICE_UNAVAILABLE' ? { 'Retry-After': '5' } : {});
    }
    const caller = entered.caller as Session['caller'];
    const releaseSlot = door.sockets.takeCredentialSlot(credentials.token ?? `courier:${caller.courier.courier.id}`);
    if (!releaseSlot) return refuse(socket, new AppError('RATE_LIMITED', 'Too many open sockets for this courier token'));
    if (closing || socket.destroyed) return releaseSlot();
    wss.handleUpgrade(req, socket, head, (ws) => open(ws, caller, credentials, releaseSlot));
  }

  return {
    handles: (url: string) => LIVE_PATH.test(url),

    handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
      if (closing) return refuse(socket, new AppError('SERVICE_UNAVAILABLE', 'Server shutting down'));
      socket.on('error', () => socket.destroy());
      admit(req, socket, head).catch((error: unknown) => refuse(socket, errorOf(error)));
    },

    stats: () => ({ sockets: sessions.size, ...counters }),

    /** Closes every socket with 1001, after the frames already received are answered. */
    async close(): Promise<void> {
      closing = true;
      heartbeat.stop();
      await Promise.all(
        [...sessions].map(async (session) => {
          await session.tail;
          await closeGracefully(session.ws, COURIER_SOCKET_CLOSE.shuttingDown, 'server shutting down');
        }),
      );
      wss.close();
    },
  };
}

export type CourierSockets = ReturnType<typeof attachCourierSockets>;