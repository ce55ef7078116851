import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoteResponseSchema } from '../../rest/openapi/responses.js';
import { api, gql, startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';

/** The app's clock is frozen here, so estimated times can be checked to the millisecond. */
const NOW = Date.parse('2025-03-14T15:00:00.000Z');
const minutesAfterNow = (mins: number) => new Date(NOW + mins * 60_000).toISOString();

/**
 * A route along one meridian, priced by hand with the default Santiago tariff:
 * 0.09° of latitude = 10 007.5 m great-circle, × 1.3 detour = 13 010 m of road.
 * price = base + per_km × 13.01 rounded up to 10 pesos; travel = 13.01 km at the class speed, rounded up;
 * batched = 75 % of the price rounded up to 10 pesos.
 */
const NORTH = { lat: -33.4, lng: -70.6 };
const SOUTH = { lat: -33.49, lng: -70.6 };
const BY_VEHICLE = {
  bike: { price: 7070, batched: 5310, travel: 56 }, // 1990 + 390 × 13.01; 14 km/h
  motorcycle: { price: 8870, batched: 6660, travel: 31 }, // 2490 + 490 × 13.01; 26 km/h
  car: { price: 12470, batched: 9360, travel: 36 }, // 3490 + 690 × 13.01; 22 km/h
  van: { price: 19870, batched: 14910, travel: 40 }, // 6990 + 990 × 13.01; 20 km/h
} as const;

/** Points of the offline gazetteer (src/adapters/geocoder/santiago-comunas.csv). */
const COMUNA = {
  providencia: { lat: -33.4214, lng: -70.6033 },
  lasCondes: { lat: -33.4154, lng: -70.5837 },
  nunoa: { lat: -33.4607, lng: -70.5927 },
  penalolen: { lat: -33.4904, lng: -70.5105 },
  santiago: { lat: -33.4417, lng: -70.6541 },
};

const CONCEPCION = { lat: -36.8201, lng: -73.0444 };

type Res = Awaited<ReturnType<typeof api>>;

function expectError(res: Res, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ success: false, error: { code, message: expect.any(String) } });
}

const fieldsOf = (res: Res) => (res.body.error.fields as Array<{ field: string }>).map((f) => f.field).sort();

describe('POST /shipping/quote', () => {
  let t: TestApp;
  let m: MerchantCredentials;
  const quote = (body: unknown, key = m.testKey) => api(`${t.url}/api/v1/shipping/quote`, { key, body });
  /** The same quote, priced from coordinates only (no geocoding). */
  const priceByCoords = async (origin: { lat: number; lng: number }, destination: { lat: number; lng: number }, weight = 0) => {
    const res = await quote({ origin: { address: 'coords', coords: origin }, destination, total_weight_kg: weight });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.price as number;
  };

  beforeAll(async () => {
    t = await startTestApp({ clock: { now: () => new Date(NOW) } });
    m = await t.createMerchant({ name: 'Quote Merchant', address: 'Av. Providencia 1234, Providencia' });
  });
  afterAll(() => t?.stop());

  describe('request forms', () => {
    it('Form A: origin and destination Address objects with coords, total_weight_kg', async () => {
      const res = await quote({
        origin: { address: 'Av. Los Leones 100', coords: NORTH, number: '12' },
        destination: { address: 'Gran Avenida 5000', coords: SOUTH, instructions: 'Timbre 3' },
        package_type: 'box',
        total_weight_kg: 10,
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        success: true,
        is_test: true,
        price: BY_VEHICLE.motorcycle.price,
        currency: 'CLP',
        vehicle_type: 'motorcycle',
        travel_time_minutes: BY_VEHICLE.motorcycle.travel,
        distance_m: 13010,
      });
    });

    it('Form A with address text only: geocoded to the comunas named in the text', async () => {
      const res = await quote({
        origin: { address: 'Av. Providencia 1234, Providencia' },
        destination: { address: 'Av. Apoquindo 3000, Las Condes', number: '501' },
        total_weight_kg: 2,
      });
      expect(res.status).toBe(200);
      expect(res.body.vehicle_type).toBe('bike');
      // Both ends are comuna points (locality precision), 2.4 km apart by road: the 3 km floor applies.
      expect(res.body.distance_m).toBe(3000);
      expect(res.body.price).toBeGreaterThan(await priceByCoords(COMUNA.providencia, COMUNA.lasCondes, 2));
    });

    it('Form B: destination string, origin omitted → the merchant profile address, total_weight', async () => {
      const res = await quote({ destination: 'Av. Irarrázaval 2000, Ñuñoa', total_weight: 15 });
      expect(res.status).toBe(200);
      expect(res.body.vehicle_type).toBe('motorcycle');
      expect(res.body.price).toBe(await priceByCoords(COMUNA.providencia, COMUNA.nunoa, 15));
    });

    it('Form B: destination {lat, lng} skips geocoding; origin omitted → merchant address', async () => {
      const byText = await quote({ destination: 'Av. Irarrázaval 2000, Ñuñoa' });
      const byCoords = await quote({ destination: COMUNA.nunoa });
      expect(byCoords.status).toBe(200);
      expect(byCoords.body.price).toBe(byText.body.price);
      expect(byCoords.body.distance_m).toBe(byText.body.distance_m);
      const away = await quote({ destination: SOUTH });
      expect(away.body.distance_m).not.toBe(byCoords.body.distance_m);
    });

    it('Form B: origin as a string or {lat, lng} replaces the merchant address', async () => {
      const res = await quote({ origin: NORTH, destination: SOUTH, total_weight: 0 });
      expect(res.body).toMatchObject({ price: BY_VEHICLE.bike.price, vehicle_type: 'bike', distance_m: 13010 });
      const text = await quote({ origin: 'Los Militares 5000, Las Condes', destination: 'Av. Irarrázaval 2000, Ñuñoa' });
      expect(text.body.price).toBe(await priceByCoords(COMUNA.lasCondes, COMUNA.nunoa));
    });

    it('the live key quotes too and says is_test false', async () => {
      const res = await quote({ origin: NORTH, destination: SOUTH }, m.liveKey);
      expect(res.status).toBe(200);
      expect(res.body.is_test).toBe(false);
    });
  });

  describe('response', () => {
    it('carries the union of both forms, with the documented types', async () => {
      for (const body of [
        { origin: { address: 'A 1', coords: NORTH }, destination: { address: 'B 2', coords: SOUTH }, total_weight_kg: 1 },
        { destination: SOUTH, total_weight: 1 },
      ]) {
        const res = await quote(body);
        expect(res.status).toBe(200);
        expect(Object.keys(res.body).sort()).toEqual(
          [
            'success', 'is_test', 'price', 'currency', 'estimated_time_mins', 'vehicle_type', // Form A
            'prep_time_minutes', 'travel_time_minutes', 'total_estimated_minutes', 'estimated_pickup_time', 'estimated_delivery_time', 'rates', // Form B
            'distance_m', 'precision', 'quote_id', 'expires_at', 'scheduled_pickup_at', 'deliver_before',
          ].sort(),
        );
        const parsed = quoteResponseSchema.safeParse(res.body);
        expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
        const b = res.body;
        for (const k of ['price', 'estimated_time_mins', 'prep_time_minutes', 'travel_time_minutes', 'total_estimated_minutes']) {
          expect(Number.isInteger(b[k]), k).toBe(true);
        }
        expect(b.estimated_pickup_time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        expect(b.estimated_time_mins).toBe(b.total_estimated_minutes);
        for (const rate of b.rates) {
          expect(Object.keys(rate).sort()).toEqual(['cost', 'estimated_minutes', 'id', 'name', 'recommended']);
          expect(typeof rate.name).toBe('string');
        }
      }
    });

    it('offers an express rate (recommended, = price) and a cheaper batched rate', async () => {
      const res = await quote({ origin: NORTH, destination: SOUTH, total_weight_kg: 100, prep_time_mins: 0 });
      const { price, batched, travel } = BY_VEHICLE.car;
      expect(res.body.rates).toEqual([
        { id: 'express', name: expect.stringContaining('car'), cost: price, estimated_minutes: travel, recommended: true },
        { id: 'batched', name: expect.any(String), cost: batched, estimated_minutes: travel + 90, recommended: false },
      ]);
      expect(res.body.price).toBe(price);
    });
  });

  describe('prep time: request → merchant default → 0, applied to every estimate', () => {
    let p: MerchantCredentials;
    beforeAll(async () => {
      p = await t.createMerchant({ name: 'Prep Merchant' });
    });
    const body = (extra: Record<string, unknown> = {}) => ({ origin: NORTH, destination: SOUTH, ...extra });
    const expectEstimates = (res: Res, prep: number) => {
      const travel = BY_VEHICLE.bike.travel;
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        prep_time_minutes: prep,
        travel_time_minutes: travel,
        total_estimated_minutes: prep + travel,
        estimated_time_mins: prep + travel,
        estimated_pickup_time: minutesAfterNow(prep),
        estimated_delivery_time: minutesAfterNow(prep + travel),
      });
      expect(res.body.rates.map((r: { estimated_minutes: number }) => r.estimated_minutes)).toEqual([prep + travel, prep + travel + 90]);
    };

    it('no request value and no merchant default: 0', async () => {
      expectEstimates(await quote(body(), p.testKey), 0);
    });

    it('the merchant default set by PATCH /merchants/settings', async () => {
      const patched = await api(`${t.url}/api/v1/merchants/settings`, { method: 'PATCH', key: p.testKey, body: { prep_time_mins: 15 } });
      expect(patched.status).toBe(200);
      expectEstimates(await quote(body(), p.testKey), 15);
    });

    it('the request value wins over the merchant default, including 0', async () => {
      expectEstimates(await quote(body({ prep_time_mins: 25 }), p.testKey), 25);
      expectEstimates(await quote(body({ prep_time_mins: 0 }), p.testKey), 0);
    });
  });

  describe('validation and placement errors', () => {
    it('missing destination → 400 VALIDATION_ERROR naming it', async () => {
      const res = await quote({ origin: NORTH, total_weight_kg: 2 });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error.fields).toEqual([{ field: 'destination', message: 'is required' }]);
    });

    it('wrong types → 400 VALIDATION_ERROR listing every bad field', async () => {
      const res = await quote({ destination: 42, total_weight_kg: 'heavy', prep_time_mins: 2.5, origin: { lat: 'x', lng: 1 }, extra: true });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(fieldsOf(res)).toEqual(expect.arrayContaining(['destination', 'extra', 'origin', 'prep_time_mins', 'total_weight_kg']));
      expect(fieldsOf(res).every((f) => /^(destination|extra|origin|prep_time_mins|total_weight_kg)\b/.test(f))).toBe(true);
    });

    it('a body that is not an object → 400 VALIDATION_ERROR', async () => {
      expectError(await quote([]), 400, 'VALIDATION_ERROR');
    });

    it('an address that cannot be placed → 400 GEOCODING_FAILED on that field', async () => {
      const res = await quote({ destination: 'Calle Inventada 123, Narnia' });
      expectError(res, 400, 'GEOCODING_FAILED');
      expect(res.body.error.fields).toEqual([{ field: 'destination', message: expect.any(String) }]);
      const origin = await quote({ origin: { address: 'Rue de Rivoli 1, Paris' }, destination: SOUTH });
      expectError(origin, 400, 'GEOCODING_FAILED');
      expect(origin.body.error.fields[0].field).toBe('origin');
    });

    it('coordinates outside the Región Metropolitana → 400 OUTSIDE_SERVICE_AREA', async () => {
      expectError(await quote({ destination: CONCEPCION }), 400, 'OUTSIDE_SERVICE_AREA');
      expectError(await quote({ origin: { address: 'Concepción', coords: CONCEPCION }, destination: SOUTH }), 400, 'OUTSIDE_SERVICE_AREA');
    });

    it('901 kg → 400 WEIGHT_EXCEEDS_CAPACITY; 800 kg still goes by van', async () => {
      expectError(await quote({ origin: NORTH, destination: SOUTH, total_weight_kg: 901 }), 400, 'WEIGHT_EXCEEDS_CAPACITY');
      expectError(await quote({ destination: SOUTH, total_weight: 901 }), 400, 'WEIGHT_EXCEEDS_CAPACITY');
      expect((await quote({ origin: NORTH, destination: SOUTH, total_weight_kg: 800 })).body.vehicle_type).toBe('van');
    });

    it('a merchant without an address and no origin → 400 naming origin', async () => {
      const bare = await t.app.container.services.admin.createMerchant({ input: { name: 'No Address' } });
      const res = await quote({ destination: SOUTH }, bare.testKey);
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error.fields).toEqual([{ field: 'origin', message: expect.stringContaining('required') }]);
      expect((await quote({ origin: NORTH, destination: SOUTH }, bare.testKey)).status).toBe(200);
    });
  });

  it('selects the smallest vehicle that carries the weight (class limits inclusive)', async () => {
    const cases = [
      [0, 'bike'], [6, 'bike'], [6.01, 'motorcycle'], [20, 'motorcycle'], [20.5, 'car'], [150, 'car'], [150.1, 'van'], [800, 'van'],
    ] as const;
    for (const [kg, vehicle] of cases) {
      const res = await quote({ origin: NORTH, destination: SOUTH, total_weight_kg: kg, prep_time_mins: 0 });
      expect(res.body.vehicle_type, `${kg} kg`).toBe(vehicle);
      expect(res.body.price, `${kg} kg`).toBe(BY_VEHICLE[vehicle].price);
      expect(res.body.travel_time_minutes, `${kg} kg`).toBe(BY_VEHICLE[vehicle].travel);
    }
    // No weight at all counts as 0 kg.
    expect((await quote({ origin: NORTH, destination: SOUTH })).body.vehicle_type).toBe('bike');
  });

  it('matches comuna names regardless of accents and case', async () => {
    const nunoa = await priceByCoords(COMUNA.providencia, COMUNA.nunoa);
    const penalolen = await priceByCoords(COMUNA.providencia, COMUNA.penalolen);
    for (const [destination, expected] of [
      ['Av. Grecia 1000, ÑUÑOA', nunoa],
      ['av. grecia 1000, nunoa', nunoa],
      ['Av. Grecia 1000, Ñuñoa', nunoa],
      ['Av. Grecia 8000, Peñalolén', penalolen],
      ['AV. GRECIA 8000, PENALOLEN', penalolen],
    ] as const) {
      const res = await quote({ destination });
      expect(res.status, destination).toBe(200);
      expect(res.body.price, destination).toBe(expected);
    }
    expect(nunoa).not.toBe(penalolen);
  });

  describe('GraphQL quote query', () => {
    const QUOTE = `query ($input: QuoteInput!) {
      quote(input: $input) {
        __typename
        ... on QueryQuoteSuccess { data {
          isTest price currency vehicleType distanceM prepTimeMinutes travelTimeMinutes totalEstimatedMinutes
          estimatedPickupTime estimatedDeliveryTime rates { id name cost estimatedMinutes recommended } } }
        ... on AppError { code message fields { field message } }
      }
    }`;

    it('returns the same price, times and rates as REST for the same input', async () => {
      const input = {
        origin: { address: 'Av. Providencia 1234, Providencia' },
        destination: { address: 'Av. Apoquindo 3000, Las Condes', number: '501' },
        totalWeightKg: 25,
        prepTimeMins: 12,
      };
      const res = await gql(t.url, QUOTE, { key: m.testKey, variables: { input } });
      expect(res.body.errors).toBeUndefined();
      const data = res.body.data.quote.data;
      const rest = await quote({
        origin: { address: 'Av. Providencia 1234, Providencia' },
        destination: { address: 'Av. Apoquindo 3000, Las Condes', number: '501' },
        total_weight_kg: 25,
        prep_time_mins: 12,
      });
      expect(rest.status).toBe(200);
      expect(data).toEqual({
        isTest: true,
        price: rest.body.price,
        currency: 'CLP',
        vehicleType: 'car',
        distanceM: rest.body.distance_m,
        prepTimeMinutes: 12,
        travelTimeMinutes: rest.body.travel_time_minutes,
        totalEstimatedMinutes: rest.body.total_estimated_minutes,
        estimatedPickupTime: rest.body.estimated_pickup_time,
        estimatedDeliveryTime: rest.body.estimated_delivery_time,
        rates: rest.body.rates.map((r: Record<string, unknown>) => ({
          id: r.id,
          name: r.name,
          cost: r.cost,
          estimatedMinutes: r.estimated_minutes,
          recommended: r.recommended,
        })),
      });
    });

    it('coordinates only, origin omitted → the merchant address, as in REST', async () => {
      const res = await gql(t.url, QUOTE, { key: m.liveKey, variables: { input: { destination: { coords: COMUNA.nunoa } } } });
      const rest = await quote({ destination: COMUNA.nunoa }, m.liveKey);
      expect(res.body.data.quote.data).toMatchObject({ isTest: false, price: rest.body.price, distanceM: rest.body.distance_m });
    });

    it('an ungeocodable address is the typed AppError GEOCODING_FAILED', async () => {
      const res = await gql(t.url, QUOTE, { key: m.testKey, variables: { input: { destination: { address: 'Calle Inventada 123, Narnia' } } } });
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.quote).toEqual({
        __typename: 'AppError',
        code: 'GEOCODING_FAILED',
        message: expect.any(String),
        fields: [{ field: 'destination', message: expect.any(String) }],
      });
    });

    it('weight over capacity is the typed AppError WEIGHT_EXCEEDS_CAPACITY', async () => {
      const input = { origin: { coords: NORTH }, destination: { coords: SOUTH }, totalWeightKg: 901 };
      const res = await gql(t.url, QUOTE, { key: m.testKey, variables: { input } });
      expect(res.body.data.quote).toMatchObject({ __typename: 'AppError', code: 'WEIGHT_EXCEEDS_CAPACITY' });
    });
  });
});
