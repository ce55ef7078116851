/**
 * Wire shape of the public tracking response (src/edge/tracking.ts), for the OpenAPI
 * document. The same object is the `tracking` of the live socket's `snapshot` message.
 */
import { z } from 'zod';
import { ORDER_STATUSES, STOP_STATUSES, VEHICLE_TYPES } from '../../src/domain/types.js';
import { registry } from './registry.js';
import { latLngWireSchema } from './responses-orders.js';

const timestamp = z.iso.datetime({ offset: true }).openapi({ example: '2025-01-31T14:05:00.000Z' });
const orderStatus = z.enum(ORDER_STATUSES);

export const trackingResponseSchema = registry.register(
  'TrackingResponse',
  z
    .object({
      success: z.literal(true),
      reference: z.string().openapi({ description: 'The reference as given: tracking number or order number.', example: 'EXD-7K3M-Q9PX-2B4T' }),
      tracking_number: z.string().openapi({ example: 'EXD-7K3M-Q9PX-2B4T' }),
      status: orderStatus,
      is_test: z.boolean().openapi({ description: 'true for a sandbox order.' }),
      estimated_pickup_time: timestamp,
      estimated_delivery_time: timestamp,
      pickup: latLngWireSchema.extend({ label: z.string().openapi({ description: 'What the geocoder matched (a comuna), or `coordinates`.', example: 'Providencia' }) }),
      dropoff: latLngWireSchema.extend({ label: z.string().openapi({ description: 'The comuna of the drop-off (never street text), or `Destination`.', example: 'Las Condes' }) }).openapi({
        description: 'Rounded to 3 decimals (~110 m): enough for a map, never the doorstep. No address text.',
      }),
      driver: z
        .object({
          name: z.string().openapi({ example: 'Camila Rojas' }),
          phone: z.string().openapi({
            description: "The number to call about this delivery: the operation's call relay (`CALL_RELAY_NUMBER`), which connects to the courier without showing either side's own number; an empty string when none is configured. Never the courier's personal phone.",
            example: '+56227654321',
          }),
          vehicle_type: z.enum(VEHICLE_TYPES),
          vehicle_plate: z.string().openapi({ example: 'AB-CD-12' }),
          location: latLngWireSchema.nullable().openapi({ description: 'Last reported position while the delivery is under way; null otherwise.' }),
        })
        .nullable()
        .openapi({ description: 'The assigned courier; null until one is assigned.' }),
      timeline: z
        .array(z.object({ status: orderStatus, at: timestamp }))
        .openapi({ description: 'Every status the order went through, oldest first.' }),
    })
    .openapi({ description: "The public view of a delivery. Never carries the customer's name, phone, RUT, address text or notes, nor the courier's personal phone." }),
);

export const stopTrackingResponseSchema = registry.register(
  'StopTrackingResponse',
  z
    .object({
      success: z.literal(true),
      stop_id: z.string(),
      status: z.enum(STOP_STATUSES).openapi({ description: "This stop's status: `pending` → `arrived` → `delivered` or `failed`." }),
      order_status: orderStatus,
      is_test: z.boolean(),
      eta: timestamp.openapi({ description: 'The planned arrival at this stop.' }),
      dropoff: latLngWireSchema.extend({ label: z.string().openapi({ description: 'The comuna of this stop (never street text), or `Destination`.' }) }).openapi({ description: 'Rounded to 3 decimals (~110 m).' }),
      stops_ahead: z.number().int().min(0).openapi({ description: 'Stops the courier serves before this one that are still open (0: this one is next, or done).' }),
      driver: z
        .object({ name: z.string(), vehicle_type: z.enum(VEHICLE_TYPES), vehicle_plate: z.string(), location: latLngWireSchema.nullable().openapi({ description: 'While the courier is on the way to this stop; null once it is done.' }) })
        .nullable(),
    })
    .openapi({ description: "One stop of a multi-stop order: never another stop's address, contact or position." }),
);
