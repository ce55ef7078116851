import { ROUTE_ORDERS, STOP_STATUSES } from '../src/domain/types.js';
import { builder } from './builder.js';
import { LocationInput, toLocationInput } from './locations.js';

/** The multi-stop enums and input (issue #30), apart from the order's types so CreateOrderInput can use them without a cycle. */
export const StopStatusEnum = builder.enumType('StopStatus', { values: STOP_STATUSES, description: 'pending → arrived → delivered or failed.' });
export const RouteOrderEnum = builder.enumType('RouteOrder', {
  values: ROUTE_ORDERS,
  description: 'given: the stops as sent; optimized: nearest neighbour from the pickup then 2-opt, kept only when strictly shorter than the given order.',
});

const StopItemInput = builder.inputType('StopItemInput', { fields: (t) => ({ name: t.string(), quantity: t.int() }) });

export const StopInput = builder.inputType('StopInput', {
  description: "A drop-off of a multi-stop order: the address as dropoff takes it, and its own contact.",
  fields: (t) => ({
    address: t.field({ type: LocationInput, required: true }),
    contactName: t.string({ required: true }),
    contactPhone: t.string({ required: true }),
    reference: t.string(),
    instructions: t.string(),
    items: t.field({ type: [StopItemInput] }),
  }),
});

/** StopInput values as the domain's stop inputs. */
export function toStopInputs(stops: ReadonlyArray<typeof StopInput.$inferInput> | null | undefined): unknown {
  return stops?.map((s) => Object.assign({}, s, { address: toLocationInput(s.address) }));
}
