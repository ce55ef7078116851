import type { LatLng, Order, OrderStatus } from '../types.js';
import type { TrackingView } from '../tracking.js';
import type { OrderMessage, WatchFanOut } from './fan-out.js';
import { isHeadingToRecipient } from '../orders/state-machine.js';

/** A live change on the public channel; `status` is always the order's real status. */
export type TrackingChange =
  | { type: 'status'; status: OrderStatus; estimatedDeliveryAt: string; at: string }
  | { type: 'position'; status: OrderStatus; location: LatLng; estimatedDeliveryAt: string; at: string }
  /** The delivery estimate moved (the live ETA); sent before the position that moved it. */
  | { type: 'eta'; status: OrderStatus; estimatedDeliveryAt: string; at: string };

/** What a tracking watcher receives: a full public view first and after every status change (when asked), then changes. */
export type TrackingUpdate = TrackingChange | { type: 'snapshot'; view: TrackingView };

export interface TrackingWatcherOptions {
  order: Order;
  /** As the customer typed it (trimmed): snapshots carry it. */
  reference: string;
  /** A snapshot first (nothing is pushed before it) and a fresh one after every status change. */
  snapshots: boolean;
  onUpdate: (update: TrackingUpdate) => void;
  /** The first snapshot could not be read: the watcher has nothing to show. */
  onFailure?: (error: Error) => void;
}

interface Watcher extends TrackingWatcherOptions {
  ready: boolean;
}

/** The watchers of one order on this node: one fan-out entry, the order's live status, snapshots read once and in order. */
interface Channel {
  orderId: string;
  status: OrderStatus;
  sequence: number;
  estimatedDeliveryAt: string;
  watchers: Set<Watcher>;
  snapshots: Promise<void>;
  unregister: () => void;
}

/**
 * Public tracking channels, one per watched order: updates are built once per message and shared
 * by every watcher of the order (transports may cache their frame per update object), snapshots
 * are read once per status change and reference.
 */
export function createTrackingChannels(deps: {
  fanOut: WatchFanOut;
  /** The public view of an order (reference left for the caller to set). */
  readView: (orderId: string) => Promise<TrackingView>;
  onSnapshotError?: (error: Error, orderId: string) => void;
}) {
  const channels = new Map<string, Channel>();

  function deliver(channel: Channel, update: TrackingUpdate): void {
    for (const watcher of channel.watchers) {
      if (!watcher.ready) continue;
      try {
        watcher.onUpdate(update);
      } catch {
        // one watcher's failure is its own
      }
    }
  }

  function dispatch(channel: Channel, message: OrderMessage): void {
    if (message.type === 'order.status_changed') {
      if (message.sequence > channel.sequence) [channel.status, channel.sequence] = [message.status, message.sequence];
      deliver(channel, { type: 'status', status: message.status, estimatedDeliveryAt: channel.estimatedDeliveryAt, at: message.at });
      queueSnapshot(channel);
    } else if (isHeadingToRecipient(channel)) {
      const { location, at } = message;
      const estimate = message.estimates?.[channel.orderId];
      if (estimate && estimate !== channel.estimatedDeliveryAt) {
        channel.estimatedDeliveryAt = estimate;
        deliver(channel, { type: 'eta', status: channel.status, estimatedDeliveryAt: estimate, at });
      }
      deliver(channel, { type: 'position', status: channel.status, location, estimatedDeliveryAt: channel.estimatedDeliveryAt, at });
    }
  }

  /** `only`: a new watcher's first snapshot; otherwise every ready watcher that wants snapshots. */
  function queueSnapshot(channel: Channel, only?: Watcher): void {
    const run = async () => {
      const targets = only ? [only] : [...channel.watchers].filter((w) => w.ready && w.snapshots);
      if (targets.length === 0) return;
      const view = await deps.readView(channel.orderId);
      const byReference = new Map<string, TrackingUpdate>();
      for (const watcher of targets) {
        if (!channel.watchers.has(watcher)) continue;
        let update = byReference.get(watcher.reference);
        if (!update) byReference.set(watcher.reference, (update = { type: 'snapshot', view: Object.assign({}, view, { reference: watcher.reference }) }));
        watcher.ready = true;
        watcher.onUpdate(update);
      }
    };
    channel.snapshots = channel.snapshots.then(run).catch((error: Error) => {
      deps.onSnapshotError?.(error, channel.orderId);
      if (only && !only.ready && channel.watchers.has(only)) only.onFailure?.(error);
    });
  }

  /**
   * After a bus outage: the order is read again; snapshot watchers get a fresh snapshot, the others
   * a status change when the status moved while the node was cut off.
   */
  function resync(channel: Channel): void {
    channel.snapshots = channel.snapshots
      .then(async () => {
        if (channel.watchers.size === 0) return;
        const view = await deps.readView(channel.orderId);
        const moved = view.status !== channel.status;
        channel.status = view.status;
        const change: TrackingUpdate = { type: 'status', status: view.status, estimatedDeliveryAt: channel.estimatedDeliveryAt, at: new Date().toISOString() };
        const byReference = new Map<string, TrackingUpdate>();
        for (const watcher of channel.watchers) {
          if (!watcher.ready) continue;
          if (!watcher.snapshots) {
            if (moved) watcher.onUpdate(change);
            continue;
          }
          let update = byReference.get(watcher.reference);
          if (!update) byReference.set(watcher.reference, (update = { type: 'snapshot', view: Object.assign({}, view, { reference: watcher.reference }) }));
          watcher.onUpdate(update);
        }
      })
      .catch((error: Error) => deps.onSnapshotError?.(error, channel.orderId));
  }
  deps.fanOut.onResync(() => {
    for (const channel of channels.values()) resync(channel);
  });

  /** Starts watching; returns the (idempotent) stop, which frees the fan-out entry with the last watcher. */
  function attach(options: TrackingWatcherOptions): () => void {
    const { order } = options;
    let channel = channels.get(order.id);
    if (!channel) {
      const created: Channel = {
        orderId: order.id, status: order.status, sequence: order.sequence, estimatedDeliveryAt: order.estimatedDeliveryAt,
        watchers: new Set(), snapshots: Promise.resolve(), unregister: () => {},
      };
      created.unregister = deps.fanOut.onOrder(order.id, (message) => dispatch(created, message));
      channels.set(order.id, (channel = created));
    }
    const watcher: Watcher = Object.assign({}, options, { ready: !options.snapshots });
    const own = channel;
    own.watchers.add(watcher);
    if (options.snapshots) queueSnapshot(own, watcher);
    return () => {
      if (!own.watchers.delete(watcher) || own.watchers.size > 0) return;
      own.unregister();
      if (channels.get(own.orderId) === own) channels.delete(own.orderId);
    };
  }

  return { attach, size: () => channels.size };
}
