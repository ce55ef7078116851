import type { Courier, CourierOrder } from './api.js';
import { dropFixes, oldestFixes } from './backlog.js';

/** The courier socket, /api/v1/couriers/me/live (docs/courier-app-api.md, section 4). */
export type LinkState = 'connecting' | 'live' | 'offline';

/** One of the courier's orders as the server pushes it: `order` null once it is no longer this courier's. */
export interface OrderEvent { booking_id: string; status: string | null; order: CourierOrder | null }

interface Handlers {
  state(state: LinkState): void;
  /** The socket is up (`ready`); `again`: not its first time on this page (frames may have been missed). */
  ready(again: boolean): void;
  /** One of the courier's orders is new, changed, or left the courier. */
  order(event: OrderEvent): void;
  /** The courier's status moved (busy with a job, available again). */
  courier(status: Courier['status']): void;
  /** Closed for the credential (4403) or refused before `ready`: check the session. */
  ended(): void;
  /** Positions still on the device changed (sent or kept). */
  backlog(): void;
}

const CLOSE_FORBIDDEN = 4403;
const BACKOFF = { firstMs: 1000, maxMs: 30_000 };
/** At most this many fixes per frame (the server's max_batch, 50). */
const BATCH = 50;

/**
 * One socket while the courier is signed in: reconnects with backoff, follows the browser's
 * online/offline signal, and sends the positions kept on the device oldest first — one frame at a
 * time, the next after the `ack`, each acknowledged frame's fixes removed from the device.
 */
export class CourierLink {
  private ws: WebSocket | null = null;
  private ready = false;
  private state: LinkState = 'connecting';
  private retryMs = BACKOFF.firstMs;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private inFlight: { id: number; keys: number[] } | null = null;
  private nextId = 1;
  private stopped = false;
  private wasReady = false;
  private maxBatch = BATCH;
  /**
   * A server without the backlog frames (it refuses `positions` and `recorded_at`): one fix per
   * frame, in order, without its fix time (the server then stamps it on arrival).
   */
  private legacy = false;

  constructor(private readonly handlers: Handlers) {
    addEventListener('online', this.onOnline);
    addEventListener('offline', this.onOffline);
    if (navigator.onLine) this.connect();
    else this.setState('offline');
  }

  stop(): void {
    this.stopped = true;
    removeEventListener('online', this.onOnline);
    removeEventListener('offline', this.onOffline);
    clearTimeout(this.retryTimer);
    this.ws?.close(1000, 'signed out');
    this.ws = null;
  }

  /** Sends what the device holds, when the socket is up and no frame awaits its ack. */
  flush(): void {
    if (!this.ready || this.inFlight || !this.ws) return;
    const ws = this.ws;
    const id = this.nextId++;
    this.inFlight = { id, keys: [] };
    oldestFixes(this.legacy ? 1 : this.maxBatch).then(
      (rows) => {
        if (ws !== this.ws || !this.ready || !rows.length) {
          this.inFlight = null;
          return;
        }
        this.inFlight = { id, keys: rows.map((row) => row.key) };
        const fixes = rows.map((row) => row.fix);
        if (this.legacy) {
          const { recorded_at: _at, ...fix } = fixes[0]!;
          ws.send(JSON.stringify({ type: 'position', id, ...fix }));
        } else {
          ws.send(JSON.stringify(fixes.length === 1 ? { type: 'position', id, ...fixes[0] } : { type: 'positions', id, positions: fixes }));
        }
      },
      () => (this.inFlight = null),
    );
  }

  private readonly onOnline = () => {
    this.retryMs = BACKOFF.firstMs;
    if (!this.ws) this.connect();
  };

  private readonly onOffline = () => {
    // The phone knows before the socket does: keep positions on the device until it is back.
    this.drop();
    this.setState('offline');
  };

  private setState(state: LinkState): void {
    if (state === this.state) return;
    this.state = state;
    this.handlers.state(state);
  }

  private drop(): void {
    clearTimeout(this.retryTimer);
    const ws = this.ws;
    this.ws = null;
    this.ready = false;
    this.inFlight = null;
    if (ws) {
      ws.onclose = null;
      ws.close(1000, 'offline');
    }
  }

  private connect(): void {
    if (this.stopped) return;
    this.setState('connecting');
    const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/v1/couriers/me/live`);
    this.ws = ws;
    ws.onmessage = (event) => this.receive(ws, String(event.data));
    ws.onclose = (event) => {
      if (ws !== this.ws) return;
      const wasReady = this.ready;
      this.ws = null;
      this.ready = false;
      this.inFlight = null;
      if (event.code === CLOSE_FORBIDDEN || !wasReady) this.handlers.ended();
      if (event.code === CLOSE_FORBIDDEN || this.stopped) return;
      this.setState(navigator.onLine ? 'connecting' : 'offline');
      if (!navigator.onLine) return;
      this.retryTimer = setTimeout(() => this.connect(), this.retryMs * (0.5 + Math.random()));
      this.retryMs = Math.min(BACKOFF.maxMs, this.retryMs * 2);
    };
  }

  private receive(ws: WebSocket, text: string): void {
    if (ws !== this.ws) return;
    let frame: {
      type?: string; id?: number; max_batch?: number; error?: { code?: string; fields?: Array<{ field: string }> };
      courier?: { status?: Courier['status'] };
    } & Partial<OrderEvent>;
    try {
      frame = JSON.parse(text) as typeof frame;
    } catch {
      return;
    }
    if (frame.type === 'ready') {
      this.ready = true;
      this.retryMs = BACKOFF.firstMs;
      if (typeof frame.max_batch === 'number' && frame.max_batch > 0) this.maxBatch = Math.min(BATCH, frame.max_batch);
      this.setState('live');
      this.handlers.ready(this.wasReady);
      this.wasReady = true;
      this.flush();
    } else if (frame.type === 'order' && frame.booking_id) {
      this.handlers.order({ booking_id: frame.booking_id, status: frame.status ?? null, order: frame.order ?? null });
    } else if (frame.type === 'courier' && frame.courier?.status) {
      this.handlers.courier(frame.courier.status);
    } else if ((frame.type === 'ack' || frame.type === 'error') && this.inFlight && frame.id === this.inFlight.id) {
      const { keys } = this.inFlight;
      const fields = frame.error?.fields?.map((f) => f.field) ?? [];
      if (!this.legacy && frame.type === 'error' && frame.error?.code === 'VALIDATION_ERROR' && (fields.includes('recorded_at') || fields.includes('type'))) {
        this.legacy = true;
        this.inFlight = null;
        this.flush();
        return;
      }
      // Refused as invalid (e.g. older than the server keeps) or out of reach of the last accepted fix: sending them again would not help.
      const done = frame.type === 'ack' || frame.error?.code === 'VALIDATION_ERROR' || frame.error?.code === 'IMPLAUSIBLE_POSITION';
      if (!done) {
        this.inFlight = null;
        this.retryTimer = setTimeout(() => this.flush(), 2000);
        return;
      }
      void dropFixes(keys).then(() => {
        if (this.inFlight?.id === frame.id) this.inFlight = null;
        this.handlers.backlog();
        this.flush();
      });
    }
  }
}
