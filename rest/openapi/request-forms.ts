/**
 * The create-order and quote request bodies as the spec's two forms, `oneOf` Form A / Form B, so a
 * client generated from the document can only build one form or the other: a body without a
 * destination, a Form B order without `payment_mode` or a quote with both weight fields does not
 * type-check. Each form is closed, and a field that belongs to the other form is documented as the
 * schema `false` (`absent` below; see normalize.ts), which generators type as `never`.
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
import { registry } from './registry.js';

/** A field this form leaves out (it belongs to the other one). */
export const absent = (description: string) => z.never().openapi({ type: 'null', 'x-never': true, description }).optional();

const { dropoff: _dropoff, dropoff_address: _dropoffAddress, stops: _stops, route: _route, ...orderFields } = createOrderBody.shape;
const singleDropoff = { stops: absent('Multi-stop form only.'), route: absent('Multi-stop form only.') };

const createOrderFormA = registry.register(
  'CreateOrderFormA',
  z
    .strictObject({
      ...orderFields,
      dropoff: locationInputSchema,
      dropoff_address: absent('Form B only: Form A gives `dropoff`.'),
      ...singleDropoff,
    })
    .openapi({ description: 'Form A: the drop-off as `dropoff` (an Address object; text or `{lat, lng}` are accepted too), `reference_id`, `items`.' }),
);

const createOrderFormB = registry.register(
  'CreateOrderFormB',
  z
    .strictObject({
      ...orderFields,
      dropoff_address: locationInputSchema,
      payment_mode: orderFields.payment_mode.unwrap(),
      dropoff: absent('Form A only: Form B gives `dropoff_address`.'),
      ...singleDropoff,
    })
    .openapi({ description: 'Form B: the drop-off as `dropoff_address` (text, or an Address or `{lat, lng}` object) with `payment_mode` (required).' }),
);

const createOrderMultiStop = registry.register(
  'CreateOrderMultiStop',
  z
    .strictObject({
      ...orderFields,
      stops: createOrderBody.shape.stops.unwrap(),
      route: createOrderBody.shape.route,
      rate_id: orderFields.rate_id.unwrap().extract(['express']).optional().openapi({ description: 'The quoted rate to book: a multi-stop order books `express` (a quote for `stops`).' }),
      dropoff: absent('Form A only: a multi-stop order gives `stops`.'),
      dropoff_address: absent('Form B only: a multi-stop order gives `stops`.'),
    })
    .openapi({
      description:
        'One pickup and 1–10 drop-offs as `stops`, served in `route` order: `given` (default) or `optimized` (nearest neighbour then 2-opt, kept only when strictly shorter). ' +
        "Priced along the route with the tariff's extra-stop fee per drop-off after the first (a quote for the same `stops` prices the same, and binds with `quote_id`).",
    }),
);

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
