import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parcelSize } from '../../src/domain/parcels.js';
import { DEFAULT_SANTIAGO_TARIFF, selectVehicle, tariffSchema } from '../../src/domain/tariffs.js';
import { api, gql, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { PLACES, expectError, expectOk, formA, merchantApi, startOrdersApp } from './support.js';

const ERR = '... on AppError { code message fields { field message } } ... on ParcelCapacityError { code vehicleType maxKg maxVolumeL maxLengthCm }';
const QUOTE = `query ($input: QuoteInput!) { quote(input: $input) {
  __typename ... on QueryQuoteSuccess { data { quoteId vehicleType price } } ${ERR} } }`;
const CREATE = `mutation ($input: CreateOrderInput!) { createOrder(input: $input) {
  __typename ... on MutationCreateOrderSuccess { data { id vehicleType price dimensions { lengthCm widthCm heightCm } } } ${ERR} } }`;

/** 60 × 40 × 40 cm = 96 L: light enough for a bike, too big for the motorcycle's 90 L top box. */
const BOX = { length_cm: 60, width_cm: 40, height_cm: 40 };
const route = { origin: { address: 'Av. Providencia 1234', coords: PLACES.providencia }, destination: { address: 'Apoquindo', coords: PLACES.lasCondes } };

describe('parcel size: the vehicle (and price) follow the volume and longest side, not only the weight', () => {
  it('the size is the order’s own dimensions, else the items measured on all three sides (times their quantity)', () => {
    expect(parcelSize({ dimensions: { lengthCm: 60, widthCm: 40, heightCm: 40 }, items: [{ length_cm: 200, width_cm: 1, height_cm: 1 }] })).toEqual({ volumeL: 96, longestCm: 60 });
    const items = [
      { name: 'Caja', quantity: 3, length_cm: 30, width_cm: 20, height_cm: 10 },
      { name: 'Tubo', length_cm: 80, width_cm: 5, height_cm: 5 },
      { name: 'Sin medir', quantity: 9, weight_kg: 1 },
      { name: 'Medido a medias', length_cm: 300 },
    ];
    expect(parcelSize({ items })).toEqual({ volumeL: 20, longestCm: 80 });
    expect(parcelSize({ items: [{ name: 'x', quantity: 1 }] })).toBeNull();
  });

  it('picks the smallest vehicle the weight and the size both allow', () => {
    const t = DEFAULT_SANTIAGO_TARIFF;
    expect(selectVehicle(t, 2).type).toBe('bike');
    expect(selectVehicle(t, 2, { volumeL: 30, longestCm: 45 }).type).toBe('bike');
    expect(selectVehicle(t, 2, { volumeL: 96, longestCm: 60 }).type).toBe('car');
    expect(selectVehicle(t, 2, { volumeL: 10, longestCm: 100 }).type).toBe('car');
    expect(selectVehicle(t, 30, { volumeL: 10, longestCm: 10 }).type).toBe('car');
    expect(() => selectVehicle(t, 900)).toThrow(expect.objectContaining({ code: 'WEIGHT_EXCEEDS_CAPACITY' }));
    expect(() => selectVehicle(t, 2, { volumeL: 10, longestCm: 300 })).toThrow(expect.objectContaining({ code: 'PARCEL_EXCEEDS_CAPACITY' }));
  });

  it('a tariff file whose larger vehicle holds less than a smaller one is refused; limits may be left out (no limit)', () => {
    const vehicles = DEFAULT_SANTIAGO_TARIFF.vehicles.map((v) => ({ ...v }));
    vehicles[2]!.max_volume_l = 50;
    const refused = tariffSchema.safeParse({ ...DEFAULT_SANTIAGO_TARIFF, vehicles });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.map((i) => i.path.join('.'))).toContain('vehicles.2.max_volume_l');
    const unlimited = DEFAULT_SANTIAGO_TARIFF.vehicles.map(({ max_volume_l: _v, max_length_cm: _l, ...v }) => v);
    expect(tariffSchema.parse({ ...DEFAULT_SANTIAGO_TARIFF, vehicles: unlimited }).vehicles[0]).not.toHaveProperty('max_volume_l');
  });

  describe('through REST and GraphQL', () => {
    let t: TestApp;
    let m: MerchantCredentials;
    const quote = (body: Record<string, unknown>) => api(`${t.url}/api/v1/shipping/quote`, { key: m.testKey, body });
    beforeAll(async () => {
      t = await startOrdersApp();
      m = await t.createMerchant({ name: 'Parcel Size Merchant', address: 'Av. Providencia 1234, Providencia' });
    });
    afterAll(() => t?.stop());

    it('a quote and an order of the same 96 L box agree: both on a car, at the same price; the order keeps the dimensions', async () => {
      const light = expectOk(await quote({ ...route, total_weight_kg: 2 })).body;
      expect(light.vehicle_type).toBe('bike');
      const boxed = expectOk(await quote({ ...route, total_weight_kg: 2, dimensions: BOX })).body;
      expect(boxed.vehicle_type).toBe('car');
      expect(boxed.price).toBeGreaterThan(light.price);
      const orders = merchantApi(t, m.testKey);
      const body = formA({ items: [{ name: 'Lámpara', quantity: 1, weight_kg: 2 }], dimensions: BOX });
      const id = expectOk(await orders.create(body), 201).body.booking_id as string;
      const order = expectOk(await orders.get(id)).body;
      expect(order).toMatchObject({ vehicle_type: 'car', price: boxed.price, dimensions: BOX });
      const bound = expectOk(await orders.create(formA({ items: body.items, dimensions: BOX, quote_id: boxed.quote_id })), 201).body.booking_id as string;
      expect(expectOk(await orders.get(bound)).body.price).toBe(boxed.price);
    });

    it('items measured on their sides choose the vehicle when the order gives no dimensions; an order without any size shows null', async () => {
      const orders = merchantApi(t, m.testKey);
      const tubes = formA({ items: [{ name: 'Tubo', quantity: 1, weight_kg: 1, length_cm: 100, width_cm: 8, height_cm: 8 }] });
      expect(expectOk(await orders.get(expectOk(await orders.create(tubes), 201).body.booking_id)).body).toMatchObject({ vehicle_type: 'car', dimensions: null });
      const plain = expectOk(await orders.get(expectOk(await orders.create(formA()), 201).body.booking_id)).body;
      expect(plain).toMatchObject({ vehicle_type: 'bike', dimensions: null });
    });

    it('an order bigger than its quote’s vehicle is QUOTE_MISMATCH on dimensions', async () => {
      const small = expectOk(await quote({ ...route, total_weight_kg: 1 })).body;
      const res = expectError(await merchantApi(t, m.testKey).create(formA({ dimensions: BOX, quote_id: small.quote_id })), 422, 'QUOTE_MISMATCH');
      expect(res.body.error.fields.map((f: { field: string }) => f.field)).toContain('dimensions');
    });

    it('a parcel no vehicle carries is 422 PARCEL_EXCEEDS_CAPACITY with the largest vehicle’s limits, on quotes and orders', async () => {
      const long = { length_cm: 300, width_cm: 20, height_cm: 20 };
      for (const res of [await quote({ ...route, total_weight_kg: 5, dimensions: long }), await merchantApi(t, m.testKey).create(formA({ total_weight_kg: 5, dimensions: long }))]) {
        const body = expectError(res, 422, 'PARCEL_EXCEEDS_CAPACITY').body;
        expect(body.error.details).toEqual({
          limits: { vehicle_type: 'van', max_kg: 800, max_volume_l: 3000, max_length_cm: 250 },
          parcel: { weight_kg: 5, volume_l: 120, longest_cm: 300 },
        });
      }
      expect((await merchantApi(t, m.testKey).list()).body.orders.some((o: { dimensions: unknown }) => JSON.stringify(o.dimensions) === JSON.stringify(long))).toBe(false);
    });

    it('bad dimensions are 400 VALIDATION_ERROR naming the field, never a 500', async () => {
      for (const dimensions of [{ length_cm: 0, width_cm: 1, height_cm: 1 }, { length_cm: 10, width_cm: 10 }, { length_cm: 10, width_cm: 10, height_cm: 10, depth_cm: 3 }, 'big', { length_cm: 1e9, width_cm: 1, height_cm: 1 }]) {
        const res = expectError(await quote({ ...route, dimensions }), 400, 'VALIDATION_ERROR');
        expect(JSON.stringify(res.body.error.fields)).toContain('dimensions');
      }
      expectError(await merchantApi(t, m.testKey).create(formA({ items: [{ name: 'x', length_cm: -5 }] })), 400, 'VALIDATION_ERROR');
    });

    it('GraphQL: quote and createOrder take dimensions (and item sides), agree on the vehicle, and answer the refusal as a typed AppError', async () => {
      const dims = { lengthCm: 60, widthCm: 40, heightCm: 40 };
      const q = (await gql(t.url, QUOTE, { key: m.testKey, variables: { input: { destination: { coords: PLACES.lasCondes }, origin: { coords: PLACES.providencia }, totalWeightKg: 2, dimensions: dims } } })).body.data.quote;
      expect(q).toMatchObject({ __typename: 'QueryQuoteSuccess', data: { vehicleType: 'car' } });
      const input = { pickup: { address: 'Av. Providencia 1234', coords: PLACES.providencia }, dropoff: { address: 'Apoquindo', coords: PLACES.lasCondes }, customerName: 'Ana', customerPhone: '+56912345678', totalWeightKg: 2 };
      const created = (await gql(t.url, CREATE, { key: m.testKey, variables: { input: { ...input, dimensions: dims } } })).body.data.createOrder;
      expect(created).toMatchObject({ __typename: 'MutationCreateOrderSuccess', data: { vehicleType: 'car', price: q.data.price, dimensions: dims } });
      const byItems = (await gql(t.url, CREATE, { key: m.testKey, variables: { input: { ...input, items: [{ name: 'Tubo', quantity: 1, lengthCm: 100, widthCm: 8, heightCm: 8 }] } } })).body.data.createOrder;
      expect(byItems).toMatchObject({ data: { vehicleType: 'car', dimensions: null } });
      const refused = (await gql(t.url, CREATE, { key: m.testKey, variables: { input: { ...input, dimensions: { lengthCm: 300, widthCm: 20, heightCm: 20 } } } })).body.data.createOrder;
      expect(refused).toEqual({ __typename: 'ParcelCapacityError', code: 'PARCEL_EXCEEDS_CAPACITY', vehicleType: 'van', maxKg: 800, maxVolumeL: 3000, maxLengthCm: 250 });
      const tooHeavy = (await gql(t.url, QUOTE, { key: m.testKey, variables: { input: { destination: { coords: PLACES.lasCondes }, totalWeightKg: 900 } } })).body.data.quote;
      expect(tooHeavy).toMatchObject({ __typename: 'AppError', code: 'WEIGHT_EXCEEDS_CAPACITY' });
    });
  });
});
