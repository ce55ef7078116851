/**
 * The create-order and quote request bodies as the spec's two forms, `oneOf` Form A / Form B, so a
 * client generated from the document can only build one form or the other: a body without a
 * destination, a Form B order without `payment_mode` or a quote with both weight fields does not
 * type-check. Each form is closed, and a field that belongs to the other form is documented as a
 * schema no value satisfies (`absent` below; see normalize.ts), which both generators type as
 * `never`. An order form is split again by `payment_mode` (prepaid: no `cod_amount`), and the
 * multi-stop form (no drop-off fields) is prepaid only, so the pairings the domain checks are in
 * the types too.
 *
 * Built from the very field schemas the handlers parse with (rest/wire/). The parsers are the
 * flat schemas there: for orders they accept exactly these two forms; for quotes they also accept,
 * as they always did, the fields of the two forms mixed (and both weights when they agree to the
 * gram): the forms are what a client should send, the server stays lenient.
 */
import { z } from 'zod';
import { addressSchema, latLngSchema, locationInputSchema } from '../../src/domain/locations.js';
import { createOrderBody } from '../wire/orders.js';
import { quoteRequestBody } from '../wire/quotes.js';
import { absent, registry } from './registry.js';

const { dropoff: _dropoff, dropoff_address: _dropoffAddress, stops: _stops, route: _route, payment_mode: _paymentMode, cod_amount: codAmount, id_check: idCheck, ...otherOrderFields } = createOrderBody.shape;
/**
 * `min_age` listed (18, 19, … 99) as well as bounded: a range has no TypeScript type, a list of
 * literals does, so a generated client refuses `min_age: 17` at compile time.
 */
const minAge = idCheck.unwrap().shape.min_age.unwrap();
const minAges = Array.from({ length: minAge.maxValue! - minAge.minValue! + 1 }, (_, i) => minAge.minValue! + i);
const orderFields = {
  ...otherOrderFields,
  id_check: idCheck.unwrap().extend({ min_age: minAge.optional().openapi({ enum: minAges }) }).openapi({ description: idCheck.unwrap().description }).optional(),
};
const singleDropoff = { stops: absent('Multi-stop form only.'), route: absent('Multi-stop form only.') };

/**
 * The payment variants of a single drop-off form, told apart by `payment_mode`: a prepaid order has
 * no `cod_amount` (400 when given), a cash-on-delivery one may give it (the spec's Form B body
 * has `payment_mode: cash_on_delivery` and no amount).
 */
const prepaid = (required: boolean) => ({
  payment_mode: required ? z.literal('prepaid') : z.literal('prepaid').optional().openapi({ description: 'Default: `prepaid`.' }),
  cod_amount: absent('Cash on delivery only: a prepaid order has no `cod_amount` (400 VALIDATION_ERROR).'),
});
const cashOnDelivery = {
  payment_mode: z.literal('cash_on_delivery'),
  cod_amount: codAmount.openapi({
    description:
      'The CLP the courier collects at the door: a whole peso, 1–10,000,000 (a fraction is 400; TypeScript has no integer type, so a generated client cannot refuse it). ' +
      'Optional: without it the amount is unknown and the courier records what was collected.',
  }),
};

const formA = {
  ...orderFields,
  dropoff: locationInputSchema,
  dropoff_address: absent('Form B only: Form A gives `dropoff`.'),
  ...singleDropoff,
};
const FORM_A = 'Form A: the drop-off as `dropoff` (an Address object; text or `{lat, lng}` are accepted too), `reference_id`, `items`';
/** Form A, prepaid or cash on delivery (the document lists the two variants in the body's `oneOf`). */
const createOrderFormA = z.union([
  registry.register('CreateOrderFormAPrepaid', z.strictObject({ ...formA, ...prepaid(false) }).openapi({ description: `${FORM_A}; prepaid (\`payment_mode\` absent or \`prepaid\`).` })),
  registry.register('CreateOrderFormACashOnDelivery', z.strictObject({ ...formA, ...cashOnDelivery }).openapi({ description: `${FORM_A}; cash on delivery, with the \`cod_amount\` to collect.` })),
]);

const formB = {
  ...orderFields,
  dropoff_address: locationInputSchema,
  dropoff: absent('Form A only: Form B gives `dropoff_address`.'),
  ...singleDropoff,
};
const FORM_B = 'Form B: the drop-off as `dropoff_address` (text, or an Address or `{lat, lng}` object) with `payment_mode` (required)';
/** Form B, prepaid or cash on delivery. */
const createOrderFormB = z.union([
  registry.register('CreateOrderFormBPrepaid', z.strictObject({ ...formB, ...prepaid(true) }).openapi({ description: `${FORM_B}: \`prepaid\`.` })),
  registry.register('CreateOrderFormBCashOnDelivery', z.strictObject({ ...formB, ...cashOnDelivery }).openapi({ description: `${FORM_B}: \`cash_on_delivery\`, with the \`cod_amount\` to collect.` })),
]);

const createOrderMultiStop = registry.register(
  'CreateOrderMultiStop',
  z
    .strictObject({
      ...orderFields,
      ...prepaid(false),
      payment_mode: z.literal('prepaid').optional().openapi({ description: 'A multi-stop order is prepaid (cash on delivery takes one drop-off).' }),
      stops: createOrderBody.shape.stops.unwrap(),
      route: createOrderBody.shape.route,
      rate_id: orderFields.rate_id.unwrap().extract(['express']).optional().openapi({ description: 'The quoted rate to book: a multi-stop order books `express` (a quote for `stops`).' }),
      dropoff: absent('Form A only: a multi-stop order gives `stops`.'),
      dropoff_address: absent('Form B only: a multi-stop order gives `stops`.'),
    })
    .openapi({
      description:
        'One pickup and 1–10 drop-offs as `stops`, served in `route` order: `given` (default) or `optimized` (nearest neighbour then 2-opt, kept only when strictly shorter). ' +
        "Priced along the route with the tariff's extra-stop fee per drop-off after the first (a quote for the same `stops` prices the same, and binds with `quote_id`). Prepaid only.",
    }),
);

/**
 * POST /orders as documented: `oneOf` Form A and Form B, each prepaid or cash on delivery, and
 * multi-stop (five variants: the generator lists a union's unions flat). The handler parses
 * `createOrderBody` (flat) and the domain checks the pairings the variants spell out.
 */
export const createOrderForms = z.union([createOrderFormA, createOrderFormB, createOrderMultiStop]).openapi({}, { unionPreferredType: 'oneOf' });

const quote = quoteRequestBody.shape;
const scheduling = { dimensions: quote.dimensions, prep_time_mins: quote.prep_time_mins, pickup_after: quote.pickup_after, deliver_before: quote.deliver_before };

const quoteFormA = registry.register(
  'QuoteRequestFormA',
  z
    .strictObject({
      origin: addressSchema.optional(),
      destination: addressSchema,
      package_type: quote.package_type,
      total_weight_kg: quote.total_weight_kg,
      ...scheduling,
      total_weight: absent('Form B only: Form A gives `total_weight_kg`.'),
      ...singleDropoff,
    })
    .openapi({ description: 'Form A: `origin` and `destination` as Address objects (`origin` defaults to the merchant profile address), `total_weight_kg`.' }),
);

const quoteFormB = registry.register(
  'QuoteRequestFormB',
  z
    .strictObject({
      origin: locationInputSchema.optional(),
      destination: z.union([z.string().trim().min(3).max(300), latLngSchema]),
      total_weight: quote.total_weight,
      ...scheduling,
      total_weight_kg: absent('Form A only: Form B gives `total_weight`.'),
      ...singleDropoff,
    })
    .openapi({ description: 'Form B: `destination` as a full address or `{lat, lng}`; `origin` optional (text or object; default: the merchant profile address), `total_weight`.' }),
);

const quoteMultiStop = registry.register(
  'QuoteRequestMultiStop',
  z
    .strictObject({
      origin: locationInputSchema.optional(),
      stops: quote.stops.unwrap(),
      route: quote.route,
      package_type: quote.package_type,
      total_weight_kg: quote.total_weight_kg,
      ...scheduling,
      destination: absent('A multi-stop quote gives `stops`.'),
      total_weight: absent('Form B only.'),
    })
    .openapi({ description: 'A multi-stop quote: `stops` (1–10 addresses) in `route` order (`given` or `optimized`), priced as POST /orders prices the same stops; book it with `quote_id` and the same stops.' }),
);

export const quoteRequestForms = z.union([quoteFormA, quoteFormB, quoteMultiStop]).openapi({}, { unionPreferredType: 'oneOf' });
