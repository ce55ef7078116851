/**
 * The REST wire form of the order commands: snake_case bodies (both documented request forms), each
 * parsed with a schema built from the domain's own field schemas and mapped onto the domain command
 * in one step. These schemas are the OpenAPI request bodies.
 */
import { z } from 'zod';
import { locationInputSchema } from '../../src/domain/locations.js';
import { dimensionsSchema, type Dimensions } from '../../src/domain/parcels.js';
import {
  cancelOrderCommandSchema,
  confirmDeliveryCommandSchema,
  consolidateCommandSchema,
  createOrderCommandSchema,
  listOrdersQuerySchema,
  ORDER_PAGE_MAX,
  type CancelOrderCommand,
  type ConfirmDeliveryCommand,
  type ConsolidateCommand,
  type CreateOrderCommand,
  type ListOrdersQuery,
} from '../../src/domain/orders/schemas.js';
import { idCheckInputSchema } from '../../src/domain/orders/id-check.js';
import { addTipCommandSchema, type AddTipCommand } from '../../src/domain/orders/tips.js';
import { MAX_STOPS, stopInputSchema } from '../../src/domain/orders/stops.js';
import { parseInput } from '../../src/domain/validation.js';
import { IDEMPOTENCY_FIELD_NAMES } from '../idempotency.js';

const order = createOrderCommandSchema.shape;
const side = dimensionsSchema.shape;

/** A parcel's outer size on the wire (orders and quotes), in cm. */
export const dimensionsBody = z
  .strictObject({ length_cm: side.lengthCm, width_cm: side.widthCm, height_cm: side.heightCm })
  .describe("A parcel's outer size in cm. A parcel too big for the vehicle its weight selects is carried (and priced) by a larger one.");

export function dimensionsOf(d: z.output<typeof dimensionsBody> | undefined): Dimensions | undefined {
  return d && { lengthCm: d.length_cm, widthCm: d.width_cm, heightCm: d.height_cm };
}

/** The order's ID-check flag on the wire. */
export const idCheckRequirementBody = z
  .strictObject({ required: z.literal(true), min_age: order.idCheck.unwrap().shape.minAge })
  .describe("The courier checks the recipient's ID at the door (a RUT with a valid check digit, and the age from the date of birth) before the delivery. min_age: 18–99, default 18.");

/** The courier's ID check in a delivery body. */
export const idCheckBody = z
  .strictObject({ document_number: idCheckInputSchema.shape.documentNumber, date_of_birth: idCheckInputSchema.shape.dateOfBirth })
  .describe("The recipient's ID as read at the door: document_number is the RUT (its check digit is validated; only its last 4 characters are kept), date_of_birth an ISO date (YYYY-MM-DD).");

const stopInput = stopInputSchema.shape;

/** One drop-off of a multi-stop order on the wire. */
export const stopBody = z
  .strictObject({
    address: stopInput.address, contact_name: stopInput.contactName, contact_phone: stopInput.contactPhone,
    reference: stopInput.reference, instructions: stopInput.instructions, items: stopInput.items,
  })
  .describe('A drop-off: `address` as `dropoff` takes it (an Address object, text or `{lat, lng}`), its own contact, reference, instructions and items.');

/**
 * POST /orders, both documented forms in one schema. Form A: pickup/dropoff Address objects,
 * reference_id, items. Form B: dropoff_address (string or object), payment_mode (required with it),
 * customer_rut, prep_time_mins, order_notes; pickup defaults to the merchant address.
 */
export const createOrderBody = z
  .strictObject({
    pickup: order.pickup,
    dropoff: locationInputSchema.optional(),
    dropoff_address: locationInputSchema.optional(),
    customer_name: order.customerName,
    customer_phone: order.customerPhone,
    customer_email: order.customerEmail,
    customer_rut: order.customerRut,
    payment_mode: order.paymentMode,
    reference_id: order.referenceId,
    items: order.items,
    total_weight_kg: order.totalWeightKg,
    dimensions: dimensionsBody.optional(),
    prep_time_mins: order.prepTimeMins,
    order_notes: order.notes,
    quote_id: order.quoteId,
    rate_id: order.rateId,
    pickup_after: order.pickupAfter,
    deliver_before: order.deliverBefore,
    delivery_pin: order.deliveryPin,
    id_check: idCheckRequirementBody.optional(),
    failed_attempt_policy: order.failedAttemptPolicy,
    cod_amount: order.codAmount.describe('Cash on delivery: the CLP (integer, 1–10,000,000) the courier collects at the door. Only with payment_mode cash_on_delivery (400 otherwise); optional: without it the amount is unknown and the courier records what was collected.'),
    tip: order.tip,
    stops: z.array(stopBody).min(1).max(MAX_STOPS).optional(),
    route: order.route,
  })
  .superRefine((v, ctx) => {
    const given = [v.dropoff, v.dropoff_address, v.stops].filter((x) => x !== undefined).length;
    if (v.stops !== undefined && given > 1) {
      ctx.addIssue({ code: 'custom', path: ['stops'], message: 'give dropoff, dropoff_address or stops (one of them)' });
    }
    if (given === 0) {
      ctx.addIssue({ code: 'custom', path: ['dropoff'], message: 'is required (dropoff, dropoff_address or stops)' });
    }
    if (v.route !== undefined && v.stops === undefined) ctx.addIssue({ code: 'custom', path: ['route'], message: 'is only accepted with stops' });
    if (v.stops !== undefined && v.rate_id === 'batched') ctx.addIssue({ code: 'custom', path: ['rate_id'], message: 'a multi-stop order books the express rate' });
    if (v.dropoff !== undefined && v.dropoff_address !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['dropoff_address'], message: 'give dropoff or dropoff_address, not both' });
    }
    if (v.dropoff_address !== undefined && v.payment_mode === undefined) {
      ctx.addIssue({ code: 'custom', path: ['payment_mode'], message: 'is required with dropoff_address' });
    }
  });

export function createOrderCommand(body: unknown): CreateOrderCommand {
  const b = parseInput(createOrderBody, body);
  return {
    pickup: b.pickup, dropoff: b.dropoff ?? b.dropoff_address, customerName: b.customer_name, customerPhone: b.customer_phone, customerEmail: b.customer_email,
    customerRut: b.customer_rut, paymentMode: b.payment_mode, referenceId: b.reference_id, items: b.items,
    totalWeightKg: b.total_weight_kg, dimensions: dimensionsOf(b.dimensions), prepTimeMins: b.prep_time_mins, notes: b.order_notes,
    quoteId: b.quote_id, rateId: b.rate_id, pickupAfter: b.pickup_after, deliverBefore: b.deliver_before, deliveryPin: b.delivery_pin,
    ...(b.id_check !== undefined && { idCheck: { required: true, ...(b.id_check.min_age !== undefined && { minAge: b.id_check.min_age }) } }),
    ...(b.failed_attempt_policy !== undefined && { failedAttemptPolicy: b.failed_attempt_policy }),
    ...(b.cod_amount !== undefined && { codAmount: b.cod_amount }),
    ...(b.tip !== undefined && { tip: b.tip }),
    ...(b.stops !== undefined && {
      stops: b.stops.map((s) => ({
        address: s.address, contactName: s.contact_name, contactPhone: s.contact_phone,
        ...(s.reference !== undefined && { reference: s.reference }), ...(s.instructions !== undefined && { instructions: s.instructions }), ...(s.items !== undefined && { items: s.items }),
      })),
    }),
    ...(b.route !== undefined && { route: b.route }),
  };
}

/** Error field names of POST /orders in the form the caller used: a Form B drop-off is `dropoff_address`; snake_case throughout. */
export function createOrderFieldNames(body: unknown): Record<string, string> {
  const formB = typeof body === 'object' && body !== null && 'dropoff_address' in body;
  return Object.assign({}, DOMAIN_FIELD_NAMES, formB && { dropoff: 'dropoff_address' });
}

/** Domain keys of the order-creation errors the REST wire names otherwise than in snake_case (the rest: src/edge/wire-errors.ts). */
const DOMAIN_FIELD_NAMES: Record<string, string> = Object.assign({}, IDEMPOTENCY_FIELD_NAMES, { notes: 'order_notes' });

/** The cancellation body has the command's own field names. */
export const cancelOrderBody = cancelOrderCommandSchema;

export function cancelOrderCommand(body: unknown): CancelOrderCommand {
  return parseInput(cancelOrderBody, body ?? {});
}

const delivery = confirmDeliveryCommandSchema.shape;

/** POST /orders/{id}/deliver (and the courier's own). geofence_radius is in metres. */
export const deliverOrderBody = z.strictObject({
  driver_id: delivery.driverId,
  coords: delivery.coords,
  photo_url: delivery.photoUrl,
  signature_url: delivery.signatureUrl,
  photo_proof_id: delivery.photoProofId,
  signature_proof_id: delivery.signatureProofId,
  geofence_radius: delivery.geofenceRadius,
  bypass: delivery.bypass,
  pin: delivery.pin,
  id_check: idCheckBody.optional(),
  cod_collected: delivery.codCollected.describe('Cash on delivery: the CLP the courier collected (integer). Required on a cash-on-delivery order; a different amount than its cod_amount is accepted and flagged as a mismatch (an order without cod_amount: recorded as collected, never a mismatch).'),
  stop_id: delivery.stopId.describe('A multi-stop order: the stop delivered, which must be the current one (first not delivered or failed in route order); default: the current one. 409 when another.'),
});

export function confirmDeliveryCommand(body: unknown): ConfirmDeliveryCommand {
  const b = parseInput(deliverOrderBody, body);
  return {
    driverId: b.driver_id, coords: b.coords, photoUrl: b.photo_url, signatureUrl: b.signature_url, geofenceRadius: b.geofence_radius, bypass: b.bypass,
    ...(b.photo_proof_id !== undefined && { photoProofId: b.photo_proof_id }),
    ...(b.signature_proof_id !== undefined && { signatureProofId: b.signature_proof_id }),
    ...(b.pin !== undefined && { pin: b.pin }),
    ...(b.id_check !== undefined && { idCheck: { documentNumber: b.id_check.document_number, dateOfBirth: b.id_check.date_of_birth } }),
    ...(b.cod_collected !== undefined && { codCollected: b.cod_collected }),
    ...(b.stop_id !== undefined && { stopId: b.stop_id }),
  };
}

export const consolidateBody = z.strictObject({
  geohash_zone: consolidateCommandSchema.shape.geohashZone,
  target_car_type: consolidateCommandSchema.shape.targetCarType,
});

export function consolidateCommand(body: unknown): ConsolidateCommand {
  const b = parseInput(consolidateBody, body);
  return { geohashZone: b.geohash_zone, targetCarType: b.target_car_type };
}

const list = listOrdersQuerySchema.shape;

/** GET /orders query string: numbers arrive as text. */
export const listOrdersQueryString = z.strictObject({
  status: list.status,
  created_from: list.createdFrom,
  created_to: list.createdTo,
  after: list.after,
  limit: z.coerce.number().int().min(1).max(ORDER_PAGE_MAX).default(20),
});

export function listOrdersQuery(query: unknown): ListOrdersQuery {
  const q = parseInput(listOrdersQueryString, query);
  return { status: q.status, createdFrom: q.created_from, createdTo: q.created_to, after: q.after, limit: q.limit };
}

/** POST /orders/{id}/tip: the command's own field name. */
export const addTipBody = addTipCommandSchema;

export function addTipCommand(body: unknown): AddTipCommand {
  return parseInput(addTipBody, body);
}
