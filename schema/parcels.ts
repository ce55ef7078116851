import type { Dimensions } from '../src/domain/parcels.js';
import { builder } from './builder.js';

/** A parcel's outer size in cm (orders and quotes); a size too big for the weight's vehicle picks a larger one. */
export const DimensionsInput = builder.inputType('DimensionsInput', {
  fields: (t) => ({ lengthCm: t.float({ required: true }), widthCm: t.float({ required: true }), heightCm: t.float({ required: true }) }),
});

export const DimensionsRef = builder.objectRef<Dimensions>('Dimensions').implement({
  fields: (t) => ({ lengthCm: t.exposeFloat('lengthCm'), widthCm: t.exposeFloat('widthCm'), heightCm: t.exposeFloat('heightCm') }),
});

/** A line item as the merchant sent it; the fields this API reads (sizes in cm, weight in kg), null when not given. */
type OrderItem = Record<string, unknown>;
const num = (v: unknown) => (typeof v === 'number' ? v : null);

export const OrderItemRef = builder.objectRef<OrderItem>('OrderItem').implement({
  description: "A line item of the order (the merchant's own record; these are the fields the service reads).",
  fields: (t) => ({
    name: t.string({ nullable: true, resolve: (i) => (typeof i.name === 'string' ? i.name : null) }),
    quantity: t.int({ resolve: (i) => num(i.quantity) ?? 1 }),
    weightKg: t.float({ nullable: true, resolve: (i) => num(i.weight_kg) }),
    lengthCm: t.float({ nullable: true, resolve: (i) => num(i.length_cm) }),
    widthCm: t.float({ nullable: true, resolve: (i) => num(i.width_cm) }),
    heightCm: t.float({ nullable: true, resolve: (i) => num(i.height_cm) }),
  }),
});
