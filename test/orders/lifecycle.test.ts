import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { orderCreatedSchema, orderDetailsResponseSchema, orderEventsResponseSchema, courierResponseSchema, orderCancelledResponseSchema, deliveryConfirmedResponseSchema, orderListResponseSchema, cancellationPreviewResponseSchema } from '../../rest/openapi/responses-orders.js';
import type { Mode } from '../../src/domain/types.js';
import { DEFAULT_SANTIAGO_TARIFF } from '../../src/domain/tariffs.js';
import type { MerchantCredentials, TestApp } from '../helpers/app.js';
import {
  EVIDENCE,
  PLACES,
  courierOnDuty,
  createCourier,
  expectError,
  expectOk,
  expectWireShape,
  formA,
  formB,
  historyOf,
  merchantApi,
  north,
  standDown,
  startOrdersApp,
  type CourierClient,
  type MerchantApi,
} from './support.js';

const RUT_SAMPLES = JSON.parse(readFileSync(new URL('../fixtures/rut-samples.json', import.meta.url), 'utf8')) as {
  valid: Array<{ rut: string }>;
  invalid: Array<{ rut: string }>;
};

let t: TestApp;
let m: MerchantCredentials;
const keyOf = (mode: Mode) => (mode === 'live' ? m.liveKey : m.testKey);
const ordersOf = (mode: Mode): MerchantApi => merchantApi(t, keyOf(mode));
/** Couriers each test hires; after it, the ones still available go off duty (they would take the next test's orders). */
let hired: CourierClient[] = [];

async function hire(options: Parameters<typeof courierOnDuty>[1]): Promise<CourierClient> {
  const courier = await courierOnDuty(t, options);
  hired.push(courier);
  return courier;
}

beforeAll(async () => {
  t = await startOrdersApp();
  m = await t.createMerchant({ name: 'Lifecycle Merchant', address: 'Av. Providencia 1234, Providencia' });
  await t.app.container.services.admin.createUser({ input: { rut: '12.345.678-5', name: 'Javier Muñoz' } });
});
afterAll(() => t?.stop());
afterEach(async () => {
  await standDown(...hired);
  hired = [];
  // No test may leave work in the queue: the next one's courier would take it.
  for (const mode of ['live', 'test'] as const) {
    expect(await t.app.container.store.orders.listQueued({ mode, vehicleTypes: ['bike', 'motorcycle', 'car', 'van'], limit: 10 })).toEqual([]);
  }
});

describe.each(['test', 'live'] as const)('full lifecycle in %s mode', (mode) => {
  it('new → assigned → arrived_pickup → picked_up → arrived_dropoff → completed, with history, driver and ledger', async () => {
    const orders = ordersOf(mode);

    // Step 1: a courier of this mode is on duty 1 km north of the pickup.
    const approach = north(PLACES.providencia, 1000);
    const courier = await hire({ mode, at: approach, name: `Rider ${mode}` });

    // Step 2: the merchant books (form A); the nearest courier is assigned at once.
    const body = formA();
    const created = expectOk(await orders.create(body), 201);
    expectWireShape(orderCreatedSchema, created.body);
    const id: string = created.body.booking_id;
    expect(id).toMatch(/^bk_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(created.body.status).toBe('assigned');
    expect(created.body.tracking_url).toMatch(new RegExp(`^${t.app.container.config.publicBaseUrl}/track/${created.body.tracking_number}\\?k=[\\w-]{22}$`));
    expect(Date.parse(created.body.estimated_delivery_time)).toBeGreaterThan(Date.parse(created.body.estimated_pickup_time));

    // Step 3: the details carry both forms and the driver.
    const details = expectOk(await orders.get(id));
    expectWireShape(orderDetailsResponseSchema, details.body);
    expect(details.body).toMatchObject({
      booking_id: id,
      order_id: id,
      status: 'assigned',
      is_test: mode === 'test',
      reference_id: body.reference_id,
      pickup: { address: 'Av. Providencia 1234', number: '501', instructions: 'Retail counter', coords: PLACES.providencia },
      dropoff: { address: 'Av. Apoquindo 3000, Las Condes', coords: PLACES.lasCondes },
      driver: { id: courier.id, name: `Rider ${mode}`, vehicle_type: 'motorcycle', current_location: approach },
    });
    expect(details.body.driver.vehicle_plate).toMatch(/^TS\d{4}$/);
    expect(details.body.driver.phone).toMatch(/^\+569\d{8}$/);

    // Step 4: the courier moves the order along, reporting where it is.
    const atPickup = north(PLACES.providencia, 10);
    const atDropoff = north(PLACES.lasCondes, 5);
    expectOk(await courier.position(north(PLACES.providencia, 200)));
    expect(expectOk(await courier.status(id, 'arrived_pickup')).body).toMatchObject({ booking_id: id, status: 'arrived_pickup' });
    expectOk(await courier.position(atPickup));
    expect(expectOk(await courier.status(id, 'picked_up')).body.status).toBe('picked_up');
    expectOk(await courier.position(north(PLACES.lasCondes, 300)));
    expect(expectOk(await courier.status(id, 'arrived_dropoff')).body.status).toBe('arrived_dropoff');

    // Step 5: the merchant confirms the delivery with the courier's proof.
    const delivered = expectOk(await orders.deliver(id, { driver_id: courier.id, coords: atDropoff, ...EVIDENCE }));
    expectWireShape(deliveryConfirmedResponseSchema, delivered.body);
    expect(delivered.body).toMatchObject({ booking_id: id, status: 'completed', proof: { driver_id: courier.id, bypass: false, radius_m: 20, ...EVIDENCE } });

    // Step 6: one event per transition: who, and where.
    const events = expectOk(await orders.events(id));
    expectWireShape(orderEventsResponseSchema, events.body);
    expect(historyOf(events.body.events)).toEqual(['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'completed']);
    expect(events.body.events.map((e: { from: string | null }) => e.from)).toEqual([null, 'new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff']);
    expect(events.body.events.map((e: { actor: unknown }) => e.actor)).toEqual([
      { kind: 'merchant', id: m.merchantId },
      { kind: 'system', id: null },
      { kind: 'courier', id: courier.id },
      { kind: 'courier', id: courier.id },
      { kind: 'courier', id: courier.id },
      { kind: 'merchant', id: m.merchantId },
    ]);
    expect(events.body.events.map((e: { location: unknown }) => e.location)).toEqual([
      null,
      null,
      north(PLACES.providencia, 200),
      atPickup,
      north(PLACES.lasCondes, 300),
      atDropoff,
    ]);
    const final = expectOk(await orders.get(id)).body;
    expect(final).toMatchObject({ status: 'completed', proof: delivered.body.proof });

    // Step 7: live orders are charged once; the sandbox never charges.
    const ledger = await t.app.container.store.ledger.listByMerchant({ merchantId: m.merchantId, mode });
    const mine = ledger.filter((e) => e.orderId === id);
    if (mode === 'live') {
      expect(mine).toEqual([expect.objectContaining({ kind: 'charge', amount: final.price, mode: 'live' })]);
      expect(final.price).toBeGreaterThan(0);
    } else {
      expect(ledger).toEqual([]);
    }

    // Step 8: the courier is free again.
    const me = expectOk(await courier.me());
    expectWireShape(courierResponseSchema, me.body);
    expect(me.body.courier).toMatchObject({ id: courier.id, status: 'available', job: null, is_test: mode === 'test' });
  });

  it('cancelling an assigned order frees the courier; a live charge is reversed but for the fee, the sandbox has none', async () => {
    const orders = ordersOf(mode);
    const courier = await hire({ mode, at: north(PLACES.providencia, 500) });
    const id: string = expectOk(await orders.create(formA()), 201).body.booking_id;
    expect(expectOk(await courier.me()).body.courier).toMatchObject({ status: 'busy', job: { kind: 'order', id } });
    // Both modes are quoted the same fee; only live money moves.
    const fee = DEFAULT_SANTIAGO_TARIFF.cancellation.assigned_fee;
    const preview = expectOk(await orders.cancellation(id)).body;
    expectWireShape(cancellationPreviewResponseSchema, preview);
    expect(preview).toMatchObject({ booking_id: id, cancellable: true, fee, currency: 'CLP', status: 'assigned' });

    const cancelled = expectOk(await orders.cancel(id, { reason: 'Customer no longer home' }));
    expectWireShape(orderCancelledResponseSchema, cancelled.body);
    expect(cancelled.body).toMatchObject({ booking_id: id, status: 'cancelled', reason: 'Customer no longer home', cancellation_fee: fee });
    expect(cancelled.body.message).toEqual(expect.any(String));

    expect(expectOk(await courier.me()).body.courier).toMatchObject({ status: 'available', job: null });
    const events = expectOk(await orders.events(id)).body.events;
    expect(historyOf(events)).toEqual(['new', 'assigned', 'cancelled']);
    expect(events[2]).toMatchObject({ actor: { kind: 'merchant', id: m.merchantId }, reason: 'Customer no longer home' });
    const details = expectOk(await orders.get(id)).body;
    expect(details.cancellation).toEqual({ reason: 'Customer no longer home', at: expect.any(String) });
    expect(details.cancellation_fee).toBe(fee);
    expect(expectOk(await orders.cancellation(id)).body).toMatchObject({ cancellable: false, fee: null, status: 'cancelled', valid_until: null });

    const entries = (await t.app.container.store.ledger.listByMerchant({ merchantId: m.merchantId, mode })).filter((e) => e.orderId === id);
    if (mode === 'live') {
      expect(entries.map((e) => [e.kind, e.amount])).toEqual([
        ['charge', entries[0]!.amount],
        ['reversal', -(entries[0]!.amount - fee)],
      ]);
      expect(entries.reduce((sum, e) => sum + e.amount, 0)).toBe(fee);
    } else {
      expect(entries).toEqual([]);
    }
  });
});

/** How each state is reached from scratch: a fresh order with its own courier (none for `new`). */
const STATES = ['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff', 'completed', 'cancelled'] as const;
type State = (typeof STATES)[number];

async function orderAt(state: State): Promise<{ id: string; courier: CourierClient | null }> {
  const orders = ordersOf('test');
  if (state === 'new') {
    const created = expectOk(await orders.create(formA()), 201);
    expect(created.body.status).toBe('new');
    return { id: created.body.booking_id, courier: null };
  }
  const courier = await hire({ mode: 'test', at: north(PLACES.providencia, 800) });
  const created = expectOk(await orders.create(formA()), 201);
  expect(created.body.status).toBe('assigned');
  const id: string = created.body.booking_id;
  const path: Record<Exclude<State, 'new'>, Array<() => Promise<unknown>>> = {
    assigned: [],
    arrived_pickup: [() => courier.status(id, 'arrived_pickup')],
    picked_up: [() => courier.status(id, 'picked_up')],
    arrived_dropoff: [() => courier.status(id, 'picked_up'), () => courier.status(id, 'arrived_dropoff')],
    completed: [() => courier.status(id, 'picked_up'), () => courier.deliver(id, { driver_id: courier.id, coords: PLACES.lasCondes, ...EVIDENCE })],
    cancelled: [() => orders.cancel(id)],
  };
  for (const step of path[state]) expectOk((await step()) as Awaited<ReturnType<typeof orders.get>>);
  expect(expectOk(await orders.get(id)).body.status).toBe(state);
  return { id, courier };
}

type Action = 'cancel' | 'courier:arrived_pickup' | 'courier:picked_up' | 'courier:arrived_dropoff' | 'courier:release' | 'deliver';
/** The expected answer: the new status, or the HTTP status and error code. */
type Outcome = State | [number, string];
const NC: Outcome = [409, 'ORDER_NOT_CANCELLABLE'];
const IST: Outcome = [409, 'INVALID_STATUS_TRANSITION'];
const NOT_YOURS: Outcome = [404, 'ORDER_NOT_FOUND'];

/** The state machine (docs/architecture.md, src/domain/orders/state-machine.ts), as seen through the API. */
const MATRIX: Record<State, Record<Action, Outcome>> = {
  new: { cancel: 'cancelled', 'courier:arrived_pickup': NOT_YOURS, 'courier:picked_up': NOT_YOURS, 'courier:arrived_dropoff': NOT_YOURS, 'courier:release': NOT_YOURS, deliver: [403, 'FORBIDDEN'] },
  assigned: { cancel: 'cancelled', 'courier:arrived_pickup': 'arrived_pickup', 'courier:picked_up': 'picked_up', 'courier:arrived_dropoff': IST, 'courier:release': 'new', deliver: IST },
  arrived_pickup: { cancel: 'cancelled', 'courier:arrived_pickup': IST, 'courier:picked_up': 'picked_up', 'courier:arrived_dropoff': IST, 'courier:release': IST, deliver: IST },
  picked_up: { cancel: NC, 'courier:arrived_pickup': IST, 'courier:picked_up': IST, 'courier:arrived_dropoff': 'arrived_dropoff', 'courier:release': IST, deliver: 'completed' },
  arrived_dropoff: { cancel: NC, 'courier:arrived_pickup': IST, 'courier:picked_up': IST, 'courier:arrived_dropoff': IST, 'courier:release': IST, deliver: 'completed' },
  completed: { cancel: NC, 'courier:arrived_pickup': IST, 'courier:picked_up': IST, 'courier:arrived_dropoff': IST, 'courier:release': IST, deliver: IST },
  cancelled: { cancel: NC, 'courier:arrived_pickup': IST, 'courier:picked_up': IST, 'courier:arrived_dropoff': IST, 'courier:release': IST, deliver: IST },
};

describe('state machine: every action from every state', () => {
  const cases = STATES.flatMap((state) =>
    (Object.entries(MATRIX[state]) as Array<[Action, Outcome]>).map(([action, outcome]) => ({
      state,
      action,
      outcome,
      name: `${state} + ${action} → ${Array.isArray(outcome) ? `${outcome[0]} ${outcome[1]}` : outcome}`,
    })),
  );

  it.each(cases)('$name', async ({ state, action, outcome }) => {
    const orders = ordersOf('test');
    const { id, courier } = await orderAt(state);
    // For `new` there is no assigned courier: a courier who does not hold the order acts (off duty, so it cannot take it).
    const actor = courier ?? (await createCourier(t, { mode: 'test' }));
    const before = expectOk(await orders.events(id)).body.events.length;

    const res =
      action === 'cancel'
        ? await orders.cancel(id, { reason: 'test' })
        : action === 'deliver'
          ? await orders.deliver(id, { driver_id: actor.id, coords: PLACES.lasCondes, ...EVIDENCE })
          : action === 'courier:release'
            ? await actor.release(id)
            : await actor.status(id, action.slice('courier:'.length));

    const after = expectOk(await orders.get(id)).body;
    if (Array.isArray(outcome)) {
      expectError(res, outcome[0], outcome[1]);
      // A refused move leaves no trace.
      expect(after.status).toBe(state);
      expect(expectOk(await orders.events(id)).body.events).toHaveLength(before);
    } else {
      expectOk(res);
      expect(after.status).toBe(outcome);
      const events = expectOk(await orders.events(id)).body.events;
      expect(events.at(-1).status).toBe(outcome);
      historyOf(events);
    }
    // Leave nothing queued or holding a courier for the next case.
    if (after.status === 'new' || after.status === 'assigned') expectOk(await orders.cancel(id));
  });
});

describe('arrivals from reported positions', () => {
  it('marks arrived_pickup within 50 m of the pickup and arrived_dropoff within 50 m of the drop-off', async () => {
    const orders = ordersOf('test');
    const courier = await hire({ mode: 'test', at: north(PLACES.providencia, 2000) });
    const id: string = expectOk(await orders.create(formA()), 201).body.booking_id;

    // Step 1: 80 m from the pickup is not there yet.
    expect(expectOk(await courier.position(north(PLACES.providencia, 80))).body.arrivals).toEqual([]);
    expect(expectOk(await orders.get(id)).body.status).toBe('assigned');

    // Step 2: 30 m away marks the arrival, at that position, by the courier.
    const near = north(PLACES.providencia, 30);
    expect(expectOk(await courier.position(near)).body.arrivals).toEqual([{ booking_id: id, status: 'arrived_pickup' }]);
    expect(expectOk(await orders.get(id)).body.status).toBe('arrived_pickup');
    // Reporting again at the pickup changes nothing more.
    expect(expectOk(await courier.position(near)).body.arrivals).toEqual([]);

    // Step 3: after the pickup, the drop-off arrival works the same way.
    expectOk(await courier.status(id, 'picked_up'));
    expect(expectOk(await courier.position(north(PLACES.lasCondes, 60))).body.arrivals).toEqual([]);
    const door = north(PLACES.lasCondes, 40);
    expect(expectOk(await courier.position(door)).body.arrivals).toEqual([{ booking_id: id, status: 'arrived_dropoff' }]);

    const events = expectOk(await orders.events(id)).body.events;
    expect(historyOf(events)).toEqual(['new', 'assigned', 'arrived_pickup', 'picked_up', 'arrived_dropoff']);
    expect(events[2]).toMatchObject({ actor: { kind: 'courier', id: courier.id }, location: near });
    expect(events[4]).toMatchObject({ actor: { kind: 'courier', id: courier.id }, location: door });
    // The merchant sees the courier where it last reported.
    expect(expectOk(await orders.get(id)).body.driver.current_location).toEqual(door);
    expectOk(await orders.deliver(id, { driver_id: courier.id, coords: door, ...EVIDENCE, geofence_radius: 50 }));
  });

  it('refuses positions outside the service area or malformed', async () => {
    const courier = await hire({ mode: 'test', at: PLACES.santiago });
    expectError(await courier.position({ lat: 40.7128, lng: -74.006 }), 400, 'OUTSIDE_SERVICE_AREA');
    const bad = expectError(await courier.position({ lat: 'x', lng: -70.6 } as never), 400, 'VALIDATION_ERROR');
    expect(bad.body.error.fields.map((f: { field: string }) => f.field)).toContain('lat');
    expect(expectOk(await courier.me()).body.courier.location).toEqual(PLACES.santiago);
  });
});

describe('dispatch queue', () => {
  it('an order without an available courier stays new until a courier that can carry it goes on duty', async () => {
    const orders = ordersOf('test');

    // Step 1: nobody on duty: the order is queued.
    const created = expectOk(await orders.create(formA({ total_weight_kg: 12, items: [] })), 201);
    const id: string = created.body.booking_id;
    expect(created.body.status).toBe('new');
    expect(expectOk(await orders.get(id)).body).toMatchObject({ status: 'new', driver: null, vehicle_type: 'motorcycle' });

    // Step 2: a bike cannot carry 12 kg: it goes on duty and the order stays queued.
    const bike = await createCourier(t, { mode: 'test', vehicle: 'bike' });
    hired.push(bike);
    expect(expectOk(await bike.duty(true)).body.courier).toMatchObject({ status: 'available', job: null });
    expect(expectOk(await orders.get(id)).body.status).toBe('new');

    // Step 3: a car can: going on duty (no position reported yet), it takes the queued order.
    const car = await createCourier(t, { mode: 'test', vehicle: 'car' });
    hired.push(car);
    expect(expectOk(await car.duty(true)).body.courier).toMatchObject({ status: 'busy', job: { kind: 'order', id } });
    expect(expectOk(await orders.get(id)).body).toMatchObject({ status: 'assigned', driver: { id: car.id, vehicle_type: 'car' } });
    expect(expectOk(await car.orders()).body.orders.map((o: { booking_id: string }) => o.booking_id)).toEqual([id]);
    expect(historyOf(expectOk(await orders.events(id)).body.events)).toEqual(['new', 'assigned']);

    // A busy courier cannot go off duty.
    expectError(await car.duty(false), 409, 'CONFLICT');
    expectOk(await orders.cancel(id));
  });

  it('a courier that releases an assigned order sends it back to new; it is dispatched to another courier', async () => {
    const orders = ordersOf('test');
    const near = await hire({ mode: 'test', at: north(PLACES.providencia, 300) });
    const far = await hire({ mode: 'test', at: north(PLACES.providencia, 3000) });
    const id: string = expectOk(await orders.create(formA()), 201).body.booking_id;
    expect(expectOk(await orders.get(id)).body.driver.id).toBe(near.id);

    const released = expectOk(await near.release(id, 'Flat tyre'));
    expect(released.body).toEqual({ success: true, booking_id: id, status: 'assigned' });
    expect(expectOk(await orders.get(id)).body.driver.id).toBe(far.id);
    const events = expectOk(await orders.events(id)).body.events;
    expect(historyOf(events)).toEqual(['new', 'assigned', 'new', 'assigned']);
    expect(events[2]).toMatchObject({ from: 'assigned', actor: { kind: 'courier', id: near.id }, reason: 'Flat tyre' });
    expect(expectOk(await near.me()).body.courier).toMatchObject({ status: 'available', job: null });
    // The courier that dropped out no longer sees the order.
    expectError(await near.status(id, 'picked_up'), 404, 'ORDER_NOT_FOUND');
    expectOk(await orders.cancel(id));
  });

  it('an order released when no other courier is free goes back to the queue, not to the courier that dropped it', async () => {
    const orders = ordersOf('test');
    const only = await hire({ mode: 'test', at: north(PLACES.providencia, 300) });
    const id: string = expectOk(await orders.create(formA()), 201).body.booking_id;

    const released = expectOk(await only.release(id));
    expect(released.body.status).toBe('new');
    expect(expectOk(await orders.get(id)).body).toMatchObject({ status: 'new', driver: null });
    expect(expectOk(await only.me()).body.courier).toMatchObject({ status: 'available', job: null });
    expect(historyOf(expectOk(await orders.events(id)).body.events)).toEqual(['new', 'assigned', 'new']);

    // The next courier to free up or come on duty takes it.
    const next = await hire({ mode: 'test', at: north(PLACES.providencia, 5000) });
    expect(expectOk(await orders.get(id)).body.driver.id).toBe(next.id);
    expectOk(await orders.cancel(id));
  });
});

describe('creating orders: both request forms, validation and the response', () => {
  it('form A: pickup and drop-off Address objects, reference_id and items', async () => {
    const orders = ordersOf('test');
    const body = formA({ items: [{ name: 'Libro', quantity: 3, weight_kg: 1.5 }] });
    const created = expectOk(await orders.create(body), 201);
    expect(Object.keys(created.body).sort()).toEqual(
      [
        'success', 'booking_id', 'status', 'tracking_url', 'tracking_number', 'order_number', 'estimated_pickup_time', 'estimated_delivery_time',
        'is_registered_user', 'isRegisteredUser', 'scheduled_pickup_at', 'deliver_before', 'batch_window_closes_at', 'delivery_pin',
      ].sort(),
    );
    expect(created.body.tracking_number).toMatch(/^EXD-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(created.body.order_number).toMatch(/^\d{10}$/);

    const details = expectOk(await orders.get(created.body.booking_id)).body;
    expect(details).toMatchObject({
      status: 'new',
      driver: null,
      reference_id: body.reference_id,
      items: [{ name: 'Libro', quantity: 3, weight_kg: 1.5 }],
      total_weight_kg: 4.5,
      vehicle_type: 'bike',
      payment_mode: 'prepaid',
      customer_name: 'Camila Rojas',
      customer_phone: '+56912345678',
      customer_rut: null,
      isRegisteredUser: false,
      is_registered_user: false,
      currency: 'CLP',
      batch_id: null,
      proof: null,
      cancellation: null,
    });
    // Readable by every identifier.
    for (const ref of [details.booking_id, details.reference_id, details.tracking_number, details.order_number]) {
      expect(expectOk(await orders.get(ref)).body.booking_id, ref).toBe(details.booking_id);
    }
    expectOk(await orders.cancel(details.booking_id));
  });

  it('form B: drop-off text, payment mode, RUT linked to a registered user, prep time and notes; pickup = merchant address', async () => {
    const orders = ordersOf('test');
    const created = expectOk(await orders.create(formB({ payment_mode: 'cash_on_delivery', cod_amount: 15_990 })), 201);
    // The spec: a RUT that matches a registered user sets isRegisteredUser, in the creation answer too.
    expect(created.body).toMatchObject({ isRegisteredUser: true, is_registered_user: true });
    const details = expectOk(await orders.get(created.body.booking_id)).body;
    expect(details).toMatchObject({
      pickup: { address: 'Av. Providencia 1234, Providencia', coords: PLACES.providencia },
      dropoff: { address: 'Av. Apoquindo 3000, Las Condes', coords: PLACES.lasCondes },
      customer_name: 'Javier Muñoz',
      customer_phone: '+56987654321',
      customer_rut: '12345678-5',
      isRegisteredUser: true,
      is_registered_user: true,
      payment_mode: 'cash_on_delivery',
      cod_amount: 15_990,
      cod: null,
      prep_time_mins: 15,
      order_notes: 'Tocar el timbre dos veces',
      reference_id: null,
    });
    // The preparation time pushes the pickup estimate at least that far from the creation (at the sandbox's pace: a test order).
    expect(Date.parse(created.body.estimated_pickup_time) - Date.parse(details.created_at)).toBeGreaterThanOrEqual((15 * 60_000) / t.app.container.config.sandbox.speed);
    const stored = await t.app.container.store.orders.findById(created.body.booking_id);
    const user = await t.app.container.store.users.findByRut('12345678-5');
    expect(stored?.customer.userId).toBe(user?.id);
    expectOk(await orders.cancel(created.body.booking_id));
  });

  it('form B: dropoff_address as an Address object or as coordinates; a valid RUT of nobody registered is kept, unlinked', async () => {
    const orders = ordersOf('test');
    const [, kRut, , , lowerK] = RUT_SAMPLES.valid.map((s) => s.rut);
    const asObject = expectOk(
      await orders.create(formB({ customer_rut: kRut, dropoff_address: { address: 'Irarrázaval 3000, Ñuñoa', number: '12B', instructions: 'Reja verde' } })),
      201,
    );
    expect(expectOk(await orders.get(asObject.body.booking_id)).body).toMatchObject({
      dropoff: { address: 'Irarrázaval 3000, Ñuñoa', number: '12B', instructions: 'Reja verde', coords: PLACES.nunoa },
      customer_rut: '9068826-K',
      isRegisteredUser: false,
    });
    const asCoords = expectOk(await orders.create(formB({ customer_rut: lowerK, dropoff_address: PLACES.santiago })), 201);
    expect(expectOk(await orders.get(asCoords.body.booking_id)).body).toMatchObject({ dropoff: { coords: PLACES.santiago }, customer_rut: '9068826-K' });
    for (const id of [asObject.body.booking_id, asCoords.body.booking_id]) expectOk(await orders.cancel(id));
  });

  it('refuses invalid requests with 400 VALIDATION_ERROR naming each field, and creates nothing', async () => {
    const fresh = await t.createMerchant({ name: 'Validation Merchant' });
    const orders = merchantApi(t, fresh.testKey);
    const fieldsOf = async (body: unknown) => {
      const res = expectError(await orders.create(body), 400, 'VALIDATION_ERROR');
      return res.body.error.fields.map((f: { field: string }) => f.field) as string[];
    };
    for (const { rut } of RUT_SAMPLES.invalid) expect(await fieldsOf(formB({ customer_rut: rut })), rut).toEqual(['customer_rut']);
    expect(await fieldsOf(formB({ customer_phone: '912345678' }))).toEqual(['customer_phone']);
    expect(await fieldsOf(formA({ customer_phone: '22 123 4567' }))).toEqual(['customer_phone']);
    expect(await fieldsOf(formB({ payment_mode: undefined }))).toEqual(['payment_mode']);
    expect(await fieldsOf(formB({ payment_mode: 'bitcoin' }))).toEqual(['payment_mode']);
    expect(await fieldsOf(formA({ dropoff: undefined }))).toEqual(['dropoff']);
    expect(await fieldsOf(formA({ dropoff_address: 'Santiago' }))).toContain('dropoff_address');
    expect(await fieldsOf(formA({ customer_name: '', merchant_id: 'm_other' }))).toEqual(expect.arrayContaining(['customer_name', 'merchant_id']));
    expect(await fieldsOf({})).toEqual(expect.arrayContaining(['customer_name', 'customer_phone']));

    expectError(await orders.create(formB({ dropoff_address: 'Calle Falsa 123, Springfield' })), 400, 'GEOCODING_FAILED');
    expectError(await orders.create(formA({ dropoff: { address: 'Times Square', coords: { lat: 40.758, lng: -73.9855 } } })), 400, 'OUTSIDE_SERVICE_AREA');
    expectError(await orders.create(formA({ total_weight_kg: 5000 })), 400, 'WEIGHT_EXCEEDS_CAPACITY');

    expect(expectOk(await orders.list()).body.orders).toEqual([]);
  });

  it('names failing fields as the request form did: pickup (never origin), dropoff (form A), dropoff_address (form B)', async () => {
    const bare = await t.app.container.services.admin.createMerchant({ input: { name: 'No Pickup Address' } });
    const orders = merchantApi(t, bare.testKey);
    expect(await errorOfFor(orders, formB())).toEqual(['VALIDATION_ERROR', ['pickup']]);
    expect(await errorOfFor(orders, formA({ pickup: undefined }))).toEqual(['VALIDATION_ERROR', ['pickup']]);
    const withPickup = merchantApi(t, keyOf('test'));
    const nowhere = 'Calle Falsa 123, Springfield';
    expect(await errorOfFor(withPickup, formB({ dropoff_address: nowhere }))).toEqual(['GEOCODING_FAILED', ['dropoff_address']]);
    expect(await errorOfFor(withPickup, formA({ dropoff: { address: nowhere } }))).toEqual(['GEOCODING_FAILED', ['dropoff']]);
    expect(await errorOfFor(withPickup, formB({ dropoff_address: { lat: 40.758, lng: -73.9855 } }))).toEqual(['OUTSIDE_SERVICE_AREA', ['dropoff_address']]);
    expect(await errorOfFor(withPickup, formA({ pickup: { address: nowhere } }))).toEqual(['GEOCODING_FAILED', ['pickup']]);
  });

  it('lists the merchant\'s orders newest first, with filters and a cursor', async () => {
    const orders = ordersOf('live');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(expectOk(await orders.create(formA()), 201).body.booking_id);
    expectOk(await orders.cancel(ids[1]!));

    const page1 = expectOk(await orders.list('?limit=2'));
    expectWireShape(orderListResponseSchema, page1.body);
    const all = expectOk(await orders.list('?limit=100')).body.orders.map((o: { booking_id: string }) => o.booking_id) as string[];
    expect(all.slice(0, 3)).toEqual([...ids].reverse());
    expect(page1.body.orders.map((o: { booking_id: string }) => o.booking_id)).toEqual(all.slice(0, 2));
    const page2 = expectOk(await orders.list(`?limit=2&after=${page1.body.next_cursor}`));
    expect(page2.body.orders.map((o: { booking_id: string }) => o.booking_id)).toEqual(all.slice(2, 4));

    const cancelled = expectOk(await orders.list('?status=cancelled&limit=100')).body.orders;
    expect(cancelled.map((o: { booking_id: string }) => o.booking_id)).toContain(ids[1]);
    expect(cancelled.every((o: { status: string }) => o.status === 'cancelled')).toBe(true);
    expectError(await orders.list('?status=lost'), 400, 'VALIDATION_ERROR');
    for (const id of [ids[0]!, ids[2]!]) expectOk(await orders.cancel(id));
  });
});

async function errorOfFor(orders: MerchantApi, body: unknown): Promise<[string, string[]]> {
  const res = await orders.create(body);
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  return [res.body.error.code, res.body.error.fields.map((f: { field: string }) => f.field)];
}
