import { randomBytes } from 'node:crypto';
import type { Clock } from '../ports/clock.js';
import type { IdSource } from '../ports/ids.js';
import type { Store } from '../ports/store.js';
import type { MerchantPrincipal } from './auth.js';
import type { CourierService } from './couriers.js';
import { hashToken } from './credentials.js';
import type { DispatchService } from './dispatch.js';
import { AppError } from './errors.js';
import { distanceMeters } from './geo.js';
import type { OrderService } from './orders/service.js';
import { currentStop, destinationOf } from './orders/stops.js';
import { collectsCash } from './orders/cod.js';
import { timeScaleOf } from './sandbox-time.js';
import { vehicleTariff, type Tariff } from './tariffs.js';
import type { Courier, LatLng, Order, VehicleType } from './types.js';
import { assertPermitted } from './members/roles.js';
import { merchantScope, type IdempotencyService, type IdempotentCall } from './idempotency.js';

/** Simulated couriers are ordinary sandbox couriers whose plate starts with this. */
export const SIMULATED_PLATE_PREFIX = 'SIM-';
export const SANDBOX_EVIDENCE = { photoUrl: 'https://sandbox.invalid/proof/photo.jpg', signatureUrl: 'https://sandbox.invalid/proof/signature.png', geofenceRadius: 20, bypass: false };

/** The simulated recipient's ID: a valid RUT, old enough for any minimum age (up to 99). */
const SANDBOX_ID = { documentNumber: '12345678-5', dateOfBirth: '1900-01-01' };

/**
 * A simulated delivery at the drop-off (a multi-stop order's current stop), with the recipient's PIN,
 * ID and cash when the order asks for them (the simulated recipient hands them over).
 */
export function sandboxDelivery(courier: Courier, order: Order) {
  const at = destinationOf(order);
  const stop = currentStop(order);
  const pin = stop ? order.stopPins?.[stop.id]?.pin : order.deliveryPin?.pin;
  return {
    driverId: courier.id, coords: { lat: at.lat, lng: at.lng }, ...SANDBOX_EVIDENCE,
    ...(pin !== undefined && { pin }), ...(order.idCheck && { idCheck: SANDBOX_ID }),
    // The simulated recipient pays exactly what the order asks (an order of unknown amount: nothing).
    ...(collectsCash(order) && { codCollected: order.codAmount ?? 0 }),
  };
}

/** How often an idle simulated courier reports its (unchanged) position: well inside any liveness window. */
const IDLE_REPORT_MS = 20_000;

/** An extra simulated courier idle this long while no test order waits goes off duty. */
const IDLE_RETIRE_MS = 5 * 60_000;

/** The oldest `base` simulated couriers of each vehicle: the standing fleet, never retired. */
function baseFleetIds(fleet: Courier[], base: number): Set<string> {
  const ids = new Set<string>();
  const byPlate = [...fleet].sort((a, b) => a.plate.localeCompare(b.plate));
  const counts = new Map<VehicleType, number>();
  for (const c of byPlate) {
    const n = counts.get(c.vehicle) ?? 0;
    if (n < base) ids.add(c.id);
    counts.set(c.vehicle, n + 1);
  }
  return ids;
}

/** Removes and returns the first item that matches. */
function takeFirst<T>(items: T[], matches: (item: T) => boolean): T | undefined {
  const at = items.findIndex(matches);
  return at < 0 ? undefined : items.splice(at, 1)[0];
}

/** Where the simulated fleet starts: spread over central Santiago. */
const START_POINTS: LatLng[] = [
  { lat: -33.4372, lng: -70.6506 },
  { lat: -33.4263, lng: -70.6149 },
  { lat: -33.4150, lng: -70.5830 },
  { lat: -33.4580, lng: -70.5980 },
  { lat: -33.4490, lng: -70.6700 },
  { lat: -33.5000, lng: -70.6500 },
];

export type SandboxService = ReturnType<typeof createSandboxService>;

/** The operation of advanceOrder's idempotency records. */
export const SANDBOX_ADVANCE = 'sandbox.advance';

/**
 * The sandbox simulator: a fleet of simulated couriers (test mode) that drive their orders along
 * the straight route, report positions (so arrivals, tracking and webhooks happen as in
 * production), pick up, and deliver at the drop-off. `speedFactor` multiplies the vehicles' speed.
 */
export function createSandboxService(deps: { store: Store; couriers: CourierService; dispatch: DispatchService; orders: OrderService; clock: Clock; ids: IdSource; tariff: Tariff; idempotency: IdempotencyService }) {
  const { store, couriers, dispatch, orders, clock, ids, tariff, idempotency } = deps;

  const listSimulated = async () => (await store.couriers.listByMode('test')).filter((c) => c.plate.startsWith(SIMULATED_PLATE_PREFIX));

  /** A new simulated courier, number `n` of the fleet, standing at `at`. */
  async function addSimulated(n: number, vehicle: VehicleType, location: LatLng): Promise<Courier> {
    const at = clock.now().toISOString();
    const courier: Courier = {
      id: ids.next('cr'), mode: 'test', name: `Sandbox Courier ${n}`, phone: `+5690000${String(n).padStart(4, '0')}`, vehicle,
      plate: `${SIMULATED_PLATE_PREFIX}${String(n).padStart(3, '0')}`,
      // Nobody holds its token: only the simulator drives it.
      tokenHash: hashToken(randomBytes(32).toString('hex')),
      accountStatus: 'active',
      status: 'available', location: { lat: location.lat, lng: location.lng }, locationAt: at, job: null, shiftEndsAt: null, createdAt: at, updatedAt: at,
    };
    await store.couriers.insert(courier);
    return courier;
  }

  async function ensureSimulatedFleet(options: { perVehicle: number }): Promise<Courier[]> {
    const existing = await listSimulated();
    const fleet = [...existing];
    const vehicles = tariff.vehicles.map((v) => v.type);
    for (const vehicle of vehicles) {
      const have = existing.filter((c) => c.vehicle === vehicle).length;
      for (let i = have; i < options.perVehicle; i++) {
        const n = fleet.length + 1;
        fleet.push(await addSimulated(n, vehicle, START_POINTS[n % START_POINTS.length]!));
      }
    }
    for (const courier of fleet) if (courier.status === 'available') await dispatch.offerWork({ courier });
    return fleet;
  }

  /**
   * The fleet follows the open test orders (issue #38 item 10): each due test order waiting with no
   * simulated courier free gets one more, standing at its pickup (an off-duty extra one comes back
   * first, a new one is added while the fleet is under `max`); extra couriers idle for IDLE_RETIRE_MS
   * while nothing waits go off duty. The first `base` per vehicle (ensureSimulatedFleet's) always stay.
   */
  async function scaleFleet(options: { base: number; max: number }): Promise<{ added: number; retired: number }> {
    const now = clock.now();
    const waiting = await store.orders.listQueued({ mode: 'test', vehicleTypes: tariff.vehicles.map((v) => v.type), limit: Math.max(options.max, 1), dueBy: now.toISOString() });
    const fleet = await listSimulated();
    const free = fleet.filter((c) => c.status === 'available' && c.accountStatus === 'active');
    const baseIds = baseFleetIds(fleet, options.base);
    const carries = (c: Courier, order: Order) => dispatch.carriable(c.vehicle).includes(order.vehicleType);
    // Each waiting order is matched to a free courier that can carry it; the rest are unserved.
    const unmatched = [...free];
    const unserved = waiting.filter((order) => !takeFirst(unmatched, (c) => carries(c, order)));
    let added = 0;
    let retired = 0;
    if (unserved.length > 0) {
      const offDuty = fleet.filter((c) => c.status === 'off_duty' && c.accountStatus === 'active' && !baseIds.has(c.id));
      let size = fleet.length;
      for (const order of unserved) {
        const back = takeFirst(offDuty, (c) => carries(c, order));
        let courier: Courier | null = null;
        if (back) {
          await store.couriers.setLocations([{ id: back.id, location: { lat: order.pickup.lat, lng: order.pickup.lng }, at: now.toISOString() }]);
          courier = await store.couriers.setStatus({ id: back.id, status: 'available', from: ['off_duty'], updatedAt: now.toISOString() });
        } else if (size < options.max) {
          size += 1;
          courier = await addSimulated(size, order.vehicleType, order.pickup);
        }
        if (!courier) continue;
        added += 1;
        await dispatch.offerWork({ courier });
      }
    } else if (waiting.length === 0) {
      for (const courier of free) {
        if (baseIds.has(courier.id) || now.getTime() - Date.parse(courier.updatedAt) < IDLE_RETIRE_MS) continue;
        if (await store.couriers.setStatus({ id: courier.id, status: 'off_duty', from: ['available'], updatedAt: now.toISOString() })) retired += 1;
      }
    }
    return { added, retired };
  }

  /** One step of the route for a moving courier: `seconds` of driving at the vehicle's speed × factor. */
  function stepToward(from: LatLng, to: LatLng, vehicle: VehicleType, seconds: number, speedFactor: number): LatLng {
    const speedKmh = vehicleTariff(tariff, vehicle)?.speed_kmh ?? 20;
    const stepM = (speedKmh / 3.6) * seconds * speedFactor;
    const remaining = distanceMeters(from, to);
    // Only the point: a stop also carries its address fields, which a position report refuses.
    if (remaining <= stepM) return { lat: to.lat, lng: to.lng };
    const f = stepM / remaining;
    return { lat: from.lat + (to.lat - from.lat) * f, lng: from.lng + (to.lng - from.lng) * f };
  }

  /** Moves one simulated courier through its job; called every tick. */
  async function driveCourier(courier: Courier, options: { seconds: number; defaultSpeed: number }): Promise<void> {
    const [order] = await couriers.activeOrders(courier);
    if (!order || !courier.location) return;
    const merchant = await store.merchants.findById(order.merchantId);
    const speedFactor = timeScaleOf({ mode: 'test', merchant, defaultSpeed: options.defaultSpeed });
    switch (order.status) {
      case 'assigned':
      case 'picked_up': {
        // A multi-stop order's destination is its current stop.
        const target = order.status === 'assigned' ? order.pickup : destinationOf(order);
        if (distanceMeters(courier.location, target) < 1) {
          // At the stop and still not arrived: arrivals by position happen only at precise stops.
          await couriers.advanceOrder({ courier, ref: order.id, input: { status: order.status === 'assigned' ? 'arrived_pickup' : 'arrived_dropoff' } });
          return;
        }
        const next = stepToward(courier.location, target, courier.vehicle, options.seconds, speedFactor);
        await couriers.reportPosition({ courier, input: next, simulated: true });
        return;
      }
      case 'arrived_pickup':
        await couriers.advanceOrder({ courier, ref: order.id, input: { status: 'picked_up' } });
        return;
      case 'arrived_dropoff':
        await couriers.confirmDelivery({ courier, ref: order.id, input: sandboxDelivery(courier, order) });
        return;
    }
  }

  /**
   * Drives every busy simulated courier one tick further, at each merchant's sandbox speed. Idle
   * ones report where they stand now and then, as a courier's app does: a silent courier leaves dispatch.
   */
  async function tick(options: { seconds: number; defaultSpeed: number }): Promise<void> {
    const simulated = (await store.couriers.listByMode('test')).filter((c) => c.plate.startsWith(SIMULATED_PLATE_PREFIX));
    const now = clock.now();
    const quiet = simulated.filter((c) => c.status === 'available' && c.location && (!c.locationAt || now.getTime() - Date.parse(c.locationAt) >= IDLE_REPORT_MS));
    if (quiet.length > 0) await store.couriers.setLocations(quiet.map((c) => ({ id: c.id, location: c.location!, at: now.toISOString() })));
    await Promise.all(simulated.filter((c) => c.status === 'busy').map((courier) => driveCourier(courier, options)));
  }

  /** POST /sandbox/orders/{id}/advance: moves one test order one step, whoever its courier is. */
  async function advanceOrder(options: { principal: MerchantPrincipal; ref: string } & IdempotentCall): Promise<Order> {
    const { principal, ref } = options;
    return idempotency.runCommand(options, { scope: merchantScope(principal, SANDBOX_ADVANCE), request: { ref } }, () => advance({ principal, ref }));
  }

  async function advance(options: { principal: MerchantPrincipal; ref: string }): Promise<Order> {
    assertPermitted(options.principal, 'dispatch');
    if (options.principal.mode !== 'test') throw new AppError('FORBIDDEN', 'The sandbox simulator only drives test orders; use a test key (ak_test_…)');
    const order = await orders.getOrder(options);
    if (order.status === 'new') {
      if (!dispatch.isDue(order)) {
        const why = order.batchWindow ? `waits for batched orders of its zone until ${order.batchWindow.closesAt}` : `is scheduled: it is dispatched from ${order.dispatchAfter} (pickup after ${order.scheduledPickupAt})`;
        throw new AppError('CONFLICT', `The order ${why}`);
      }
      const dispatched = await dispatch.dispatchOrder({ order });
      if (dispatched.status === 'new') throw new AppError('CONFLICT', 'No sandbox courier is available for this order right now; retry shortly');
      return dispatched;
    }
    const courier = order.courierId ? await store.couriers.findById(order.courierId) : null;
    if (!courier) throw new AppError('INVALID_STATUS_TRANSITION', `Order is ${order.status}; it cannot advance further`);
    switch (order.status) {
      case 'assigned':
        return couriers.advanceOrder({ courier, ref: order.id, input: { status: 'arrived_pickup' } });
      case 'arrived_pickup':
        return couriers.advanceOrder({ courier, ref: order.id, input: { status: 'picked_up' } });
      case 'picked_up':
        return couriers.advanceOrder({ courier, ref: order.id, input: { status: 'arrived_dropoff' } });
      case 'arrived_dropoff': {
        return (await couriers.confirmDelivery({ courier, ref: order.id, input: sandboxDelivery(courier, order) })).order;
      }
      default:
        throw new AppError('INVALID_STATUS_TRANSITION', `Order is ${order.status}; it cannot advance further`);
    }
  }

  return { ensureSimulatedFleet, scaleFleet, tick, advanceOrder };
}
