import { RouteOrderEnum } from './stop-inputs.js';
import { ParcelCapacityError } from '../src/domain/errors.js';
import { quoteCommandSchema, type BoundQuote, type Quote } from '../src/domain/quotes.js';
import { builder } from './builder.js';
import { commandOf } from './commands.js';
import { LatLngRef, LocationInput, toLocationInput } from './locations.js';
import { merchantOf } from './merchants.js';
import { DimensionsInput } from './parcels.js';
import { LocationPrecisionEnum } from './orders.js';

const RateRef = builder.objectRef<Quote['rates'][number]>('Rate').implement({
  fields: (t) => ({
    id: t.exposeString('id'),
    name: t.exposeString('name'),
    cost: t.exposeInt('cost'),
    estimatedMinutes: t.exposeInt('estimatedMinutes'),
    recommended: t.exposeBoolean('recommended'),
  }),
});

const QuoteRef = builder.objectRef<BoundQuote>('Quote').implement({
  fields: (t) => ({
    quoteId: t.exposeID('id', { description: 'Name it in createOrder (quoteId, with rateId) within 15 minutes to be charged exactly this price.' }),
    expiresAt: t.field({ type: 'DateTime', resolve: (q) => q.expiresAt.toISOString() }),
    scheduledPickupAt: t.field({ type: 'DateTime', nullable: true, resolve: (q) => q.scheduledPickupAt }),
    deliverBefore: t.field({ type: 'DateTime', nullable: true, resolve: (q) => q.deliverBefore }),
    isTest: t.exposeBoolean('isTest'),
    price: t.exposeInt('price'),
    currency: t.exposeString('currency'),
    vehicleType: t.exposeString('vehicleType'),
    distanceM: t.exposeInt('distanceM'),
    prepTimeMinutes: t.exposeInt('prepTimeMins'),
    travelTimeMinutes: t.exposeInt('travelMins'),
    totalEstimatedMinutes: t.exposeInt('totalMins'),
    estimatedPickupTime: t.field({ type: 'DateTime', resolve: (q) => q.pickupAt.toISOString() }),
    estimatedDeliveryTime: t.field({ type: 'DateTime', resolve: (q) => q.deliveryAt.toISOString() }),
    origin: t.field({ type: LatLngRef, resolve: (q) => q.origin }),
    destination: t.field({ type: LatLngRef, resolve: (q) => q.destination }),
    originPrecision: t.field({ type: LocationPrecisionEnum, resolve: (q) => q.origin.precision }),
    destinationPrecision: t.field({ type: LocationPrecisionEnum, resolve: (q) => q.destination.precision }),
    rates: t.field({ type: [RateRef], resolve: (q) => q.rates }),
  }),
});

const QuoteInput = builder.inputType('QuoteInput', {
  fields: (t) => ({
    origin: t.field({ type: LocationInput }),
    destination: t.field({ type: LocationInput, description: 'One drop-off; a multi-stop quote gives stops instead (exactly one of the two).' }),
    stops: t.field({ type: [LocationInput], description: '1–10 drop-offs, priced as createOrder prices the same stops (book it with quoteId and the same stops).' }),
    route: t.field({ type: RouteOrderEnum, description: 'The visiting order of stops (default given).' }),
    totalWeightKg: t.float(),
    dimensions: t.field({ type: DimensionsInput, description: 'The parcel\'s outer size: a parcel too big for the weight\'s vehicle is priced on a larger one.' }),
    packageType: t.string(),
    prepTimeMins: t.int(),
    pickupAfter: t.field({ type: 'DateTime', description: 'Quote a scheduled pickup (up to 7 days ahead).' }),
    deliverBefore: t.field({ type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  quote: t.field({
    type: QuoteRef,
    authScopes: { merchant: true },
    errors: { types: [ParcelCapacityError] },
    args: { input: t.arg({ type: QuoteInput, required: true }) },
    resolve: (_root, { input }, ctx) => {
      const { merchant, mode } = merchantOf(ctx, 'operate');
      const command = commandOf(quoteCommandSchema, Object.assign({}, input, {
        origin: toLocationInput(input.origin), destination: toLocationInput(input.destination), stops: input.stops?.map((s) => toLocationInput(s)),
      }));
      return ctx.services.quotes.quoteDelivery({ merchant, mode, input: command });
    },
  }),
}));
