import type { BusMessage, CourierPositionMessage } from '../../ports/event-bus.js';
import type { Store } from '../../ports/store.js';
import { MODES, type Courier, type CourierDutyStatus, type CourierJob, type LatLng, type Mode, type VehicleType } from '../types.js';
import type { WatchFanOut } from './fan-out.js';
import { watchIterator } from './iterator.js';
import { isSandboxRunCourier } from '../sandbox-run-couriers.js';

/** One courier as the operators' fleet map shows it. */
export interface FleetCourier {
  courierId: string;
  mode: Mode;
  name: string;
  vehicle: VehicleType;
  status: CourierDutyStatus;
  /** The order or batch it is on (busy), else null. */
  job: CourierJob | null;
  /** False once the account is disabled (the map drops it). */
  active: boolean;
  location: LatLng | null;
  locationAt: string | null;
}

/** What one interval brought: each courier that moved or changed, once, as it stands at the end of it. */
export interface FleetFrame {
  couriers: FleetCourier[];
  at: string;
}

export const FLEET_INTERVAL_MS = 1000;

const frameOf = (c: Courier): FleetCourier => ({
  courierId: c.id, mode: c.mode, name: c.name, vehicle: c.vehicle, status: c.status, job: c.job, active: c.accountStatus === 'active', location: c.location, locationAt: c.locationAt,
});

export type FleetWatch = ReturnType<typeof createFleetWatch>;

/**
 * The operators' live fleet (issue #29): positions and duty status of every courier, coalesced per
 * courier: whatever number of reports a courier sends, a subscriber gets it at most once per
 * interval, in one frame listing every courier that moved or changed. One hub per node, shared by
 * its subscribers: it runs while one is watching, and reads the store only for couriers whose
 * record changed (the bus's courier.changed) and, once, for the first snapshot.
 */
export function createFleetWatch(deps: { fanOut: WatchFanOut; store: Store; now: () => string; intervalMs?: number }) {
  const intervalMs = deps.intervalMs ?? FLEET_INTERVAL_MS;
  const subscribers = new Set<{ mode: Mode | null; push: (frame: FleetFrame) => void }>();
  const known = new Map<string, FleetCourier>();
  let moved = new Map<string, CourierPositionMessage>();
  let changed = new Set<string>();
  let seeded: Promise<void> | null = null;
  let timer: ReturnType<typeof setInterval> | null = null;
  let stopListening: (() => void) | null = null;
  let ticking = false;

  const hear = (message: BusMessage) => {
    if (message.type === 'courier.position') moved.set(message.courierId, message);
    else if (message.type === 'courier.changed' && message.courierId) changed.add(message.courierId);
  };

  async function seed(): Promise<void> {
    for (const mode of MODES) for (const courier of await deps.store.couriers.listByMode(mode)) if (!isSandboxRunCourier(courier)) known.set(courier.id, frameOf(courier));
  }

  /** The interval's changes, once per courier, to every subscriber of the courier's mode. */
  async function tick(): Promise<void> {
    if (ticking || !seeded) return;
    ticking = true;
    try {
      await seeded;
      const positions = moved;
      const reread = changed;
      moved = new Map();
      changed = new Set();
      const frames = new Map<string, FleetCourier>();
      for (const id of new Set([...reread, ...[...positions.keys()].filter((id) => !known.has(id))])) {
        const courier = await deps.store.couriers.findById(id);
        // A sandbox run's courier is never on the operators' map.
        if (courier && !isSandboxRunCourier(courier)) frames.set(id, frameOf(courier));
      }
      for (const [id, report] of positions) {
        const base = frames.get(id) ?? known.get(id);
        // A report older than what is known (a backlog) does not move the courier back.
        if (base && (base.locationAt === null || report.at >= base.locationAt)) frames.set(id, Object.assign({}, base, { location: report.location, locationAt: report.at }));
      }
      if (frames.size === 0) return;
      for (const [id, frame] of frames) known.set(id, frame);
      const at = deps.now();
      for (const subscriber of subscribers) {
        const couriers = [...frames.values()].filter((c) => subscriber.mode === null || c.mode === subscriber.mode);
        if (couriers.length > 0) subscriber.push({ couriers, at });
      }
    } finally {
      ticking = false;
    }
  }

  function start(): void {
    stopListening = deps.fanOut.onEverything(hear);
    seeded = seed();
    timer = setInterval(() => void tick().catch(() => undefined), intervalMs);
    timer.unref?.();
  }

  function stop(): void {
    stopListening?.();
    if (timer) clearInterval(timer);
    stopListening = null;
    timer = null;
    seeded = null;
    known.clear();
    moved = new Map();
    changed = new Set();
  }

  /** The fleet of one mode (or both): first every known courier, then each interval's changes. */
  function watch(options: { mode: Mode | null }): AsyncIterableIterator<FleetFrame> {
    return watchIterator<FleetFrame>((push) => {
      const subscriber = { mode: options.mode, push };
      if (subscribers.size === 0) start();
      subscribers.add(subscriber);
      void seeded!.then(() => {
        if (!subscribers.has(subscriber)) return;
        const couriers = [...known.values()].filter((c) => c.active && (options.mode === null || c.mode === options.mode));
        push({ couriers, at: deps.now() });
      }, () => undefined);
      return () => {
        subscribers.delete(subscriber);
        if (subscribers.size === 0) stop();
      };
    });
  }

  return { watch, sizes: () => ({ subscribers: subscribers.size, known: known.size }) };
}
