/**
 * What every baseline answers: a quote-shaped JSON object of the same size as our quote response,
 * so that response size is not what separates a baseline from the app under test.
 */
export const CONSTANT_QUOTE = {
  success: true,
  is_test: false,
  price: 4290,
  currency: 'CLP',
  estimated_time_mins: 23,
  vehicle_type: 'motorcycle',
  prep_time_minutes: 10,
  travel_time_minutes: 13,
  total_estimated_minutes: 23,
  estimated_pickup_time: '2025-01-01T12:10:00.000Z',
  estimated_delivery_time: '2025-01-01T12:23:00.000Z',
  rates: [
    { id: 'express', name: 'Express (motorcycle)', cost: 4290, estimated_minutes: 23, recommended: true },
    { id: 'batched', name: 'Batched (shared route)', cost: 3440, estimated_minutes: 53, recommended: false },
  ],
};
