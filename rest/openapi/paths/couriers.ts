import { z } from 'zod';
import { courierReleaseBody, courierSignInBody, courierStatusBody, dutyBody, earningsQueryString, failedAttemptBody, positionBody, returnBody } from '../../wire/couriers.js';
import { deliverOrderBody } from '../../wire/orders.js';
import { registerEndpoint } from '../registry.js';
import {
  courierArrivalsResponseSchema,
  courierEarningsResponseSchema,
  courierOrdersResponseSchema,
  courierResponseSchema,
  courierSessionResponseSchema,
  deliveryConfirmedResponseSchema,
  failedAttemptResponseSchema,
  orderStatusResponseSchema,
} from '../responses-orders.js';

const ownOrder = z.object({
  id: z.string().openapi({ description: 'The booking_id of one of your own orders; any other order is 404.', example: 'bk_01JHX3Z6Q8R2V4N7W9Y1A3C5E7' }),
});

const TAG = ['Couriers'];

registerEndpoint({
  method: 'post',
  path: '/couriers/sessions',
  operationId: 'signInCourier',
  summary: "The courier app's sign-in: a one-time link's code for a session cookie",
  description:
    'The code is the `code` of the link `courier:create` / `courier:invite` printed (`/courier/welcome#code=…`); it works once, until it ' +
    'expires or a newer link replaces it. Sets the HttpOnly, SameSite=Strict cookie `exd_courier_session` (`__Host-exd_courier_session`, ' +
    'Secure, over HTTPS). Failed codes are counted per client address like the console sign-in (429 past the bound).',
  tags: TAG,
  auth: 'public',
  body: courierSignInBody,
  bodyExample: { code: 'cc_3q2+7w…' },
  responses: { 201: { description: 'Signed in; the cookie is set', schema: courierSessionResponseSchema } },
  errors: ['SIGN_IN_LINK_INVALID'],
});

registerEndpoint({
  method: 'delete',
  path: '/couriers/sessions/current',
  operationId: 'signOutCourier',
  summary: "Sign the courier app out: ends the session and clears its cookie",
  description: 'Idempotent (no session, or an ended one, is still 204). With the cookie, send `X-Courier-CSRF`.',
  tags: TAG,
  auth: 'public',
  responses: { 204: { description: 'Signed out' } },
  errors: ['CSRF_REQUIRED'],
});

registerEndpoint({
  method: 'get',
  path: '/couriers/me',
  operationId: 'getCourierProfile',
  summary: 'The calling courier: profile, duty status, position and current job',
  tags: TAG,
  auth: 'courierToken',
  responses: { 200: { description: 'The courier', schema: courierResponseSchema } },
});

registerEndpoint({
  method: 'get',
  path: '/couriers/me/orders',
  operationId: 'listCourierOrders',
  summary: "The orders of the courier's current job (one order, or a batch)",
  tags: TAG,
  auth: 'courierToken',
  responses: { 200: { description: 'Active orders', schema: courierOrdersResponseSchema } },
});

registerEndpoint({
  method: 'get',
  path: '/couriers/me/earnings',
  operationId: 'getCourierEarnings',
  summary: 'What the courier earned: delivered orders in a time range with their tips, and the totals',
  description:
    'Orders the courier delivered (completed) with a delivery time in [`from`, `to`) (at most 93 days apart), oldest first, at ' +
    'most 500. The tariff sets no courier pay per delivery yet: `delivery_pay` is null and the earnings are the tips (CLP).',
  tags: TAG,
  auth: 'courierToken',
  query: earningsQueryString,
  responses: { 200: { description: 'The earnings', schema: courierEarningsResponseSchema } },
});

registerEndpoint({
  method: 'post',
  path: '/couriers/me/duty',
  idempotent: true,
  operationId: 'setCourierDuty',
  summary: 'Go on or off duty',
  description:
    'On duty, the courier takes queued work it can carry at once (a pending batch first); off duty is refused (409 CONFLICT) while busy. ' +
    'With `shift_ends_at` (going on duty, or already on duty to change it) the duty has a planned end: dispatch offers no order whose predicted pickup ' +
    '(the approach at the travel model, or the ready time, whichever is later) falls after it, and once it passes the courier goes off duty as soon as it carries nothing.',
  tags: TAG,
  auth: 'courierToken',
  body: dutyBody,
  bodyExample: { on_duty: true, shift_ends_at: '2026-03-02T22:00:00-03:00' },
  responses: { 200: { description: 'The courier after the change', schema: courierResponseSchema } },
  errors: ['CONFLICT'],
});

registerEndpoint({
  method: 'post',
  path: '/couriers/me/location',
  idempotent: true,
  operationId: 'reportCourierPosition',
  summary: 'Report the current position',
  description:
    'Within 50 m of the pickup of an `assigned` order the order becomes `arrived_pickup`; within 50 m of the drop-off of a ' +
    '`picked_up` order, `arrived_dropoff`. A position farther from the last accepted one than the vehicle could have gone ' +
    '(over its top speed: bike 45, motorcycle 120, car 150, van 130 km/h by default, beyond a GPS-noise allowance) is refused, 422 ' +
    '`IMPLAUSIBLE_POSITION`, and never used. Rate-limited per courier.',
  tags: TAG,
  auth: 'courierToken',
  body: positionBody,
  bodyExample: { lat: -33.4214, lng: -70.6033, heading: 90, speed_kmh: 18 },
  responses: { 200: { description: 'Arrivals this position marked', schema: courierArrivalsResponseSchema } },
  errors: ['OUTSIDE_SERVICE_AREA', 'IMPLAUSIBLE_POSITION'],
});

registerEndpoint({
  method: 'post',
  path: '/couriers/me/orders/:id/status',
  idempotent: true,
  operationId: 'advanceCourierOrder',
  summary: 'Move your order: arrived_pickup → picked_up → arrived_dropoff',
  description: 'A move the state machine forbids is 409 INVALID_STATUS_TRANSITION. `picked_up` straight from `assigned` records the arrival first.',
  tags: TAG,
  auth: 'courierToken',
  params: ownOrder,
  body: courierStatusBody,
  bodyExample: { status: 'picked_up' },
  responses: { 200: { description: 'The new status', schema: orderStatusResponseSchema } },
  errors: ['ORDER_NOT_FOUND', 'INVALID_STATUS_TRANSITION'],
});

registerEndpoint({
  method: 'post',
  path: '/couriers/me/orders/:id/release',
  idempotent: true,
  operationId: 'releaseCourierOrder',
  summary: 'Drop out of an assigned order before pickup',
  description: 'The order goes back to `new` and is dispatched again; only an `assigned` order can be released.',
  tags: TAG,
  auth: 'courierToken',
  params: ownOrder,
  body: courierReleaseBody,
  bodyRequired: false,
  bodyExample: { reason: 'Flat tyre' },
  responses: { 200: { description: 'The order as it now stands (`new`, or `assigned` to another courier)', schema: orderStatusResponseSchema } },
  errors: ['ORDER_NOT_FOUND', 'INVALID_STATUS_TRANSITION'],
});

registerEndpoint({
  method: 'post',
  path: '/couriers/me/orders/:id/deliver',
  idempotent: true,
  operationId: 'confirmCourierDelivery',
  summary: 'Confirm the delivery of your order with proof',
  description: 'As POST /orders/{id}/deliver; `driver_id` must be your own courier id. When the order lists `delivery_pin_required`, send the recipient\'s 4 digits as `pin`; when it lists `id_check`, send the recipient\'s RUT and date of birth as `id_check`.',
  tags: TAG,
  auth: 'courierToken',
  params: ownOrder,
  body: deliverOrderBody,
  bodyExample: {
    driver_id: 'cr_01JHX3Z6Q8R2V4N7W9Y1A3C5E7',
    coords: { lat: -33.4154, lng: -70.5837 },
    photo_url: 'https://cdn.example.com/pod/photo-123.jpg',
    signature_url: 'https://cdn.example.com/pod/signature-123.png',
  },
  responses: { 200: { description: 'Delivered: the stored proof', schema: deliveryConfirmedResponseSchema } },
  errors: ['ORDER_NOT_FOUND', 'GEOFENCE_FAILED', 'FORBIDDEN', 'INVALID_STATUS_TRANSITION', 'DELIVERY_PIN_INVALID', 'DELIVERY_PIN_LOCKED', 'ID_CHECK_REQUIRED', 'ID_DOCUMENT_INVALID', 'ID_CHECK_FAILED', 'COD_COLLECTED_REQUIRED'],
});

registerEndpoint({
  method: 'post',
  path: '/couriers/me/orders/:id/failed-attempt',
  idempotent: true,
  operationId: 'reportCourierFailedAttempt',
  summary: 'Report a failed delivery attempt of your order',
  description:
    'From `picked_up` or `arrived_dropoff`. The attempt (reason, note, an uploaded photo as `photo_proof_id`, where you stood) is recorded as ' +
    '`delivery_failed`, then the order\'s `failed_attempt_policy` moves it on at once: `retry` → `picked_up` (try again later; the third ' +
    'failed attempt starts the return instead), `return` → `returning` (the tariff\'s return fee is charged), `dispose` → `disposed`. ' +
    'Any other status is 409 INVALID_STATUS_TRANSITION.',
  tags: TAG,
  auth: 'courierToken',
  params: ownOrder,
  body: failedAttemptBody,
  bodyExample: { reason: 'recipient_absent', note: 'Nadie responde en el depto 402', coords: { lat: -33.4154, lng: -70.5837 } },
  responses: { 200: { description: 'The status the policy moved the order to, and its failed attempts so far', schema: failedAttemptResponseSchema } },
  errors: ['ORDER_NOT_FOUND', 'INVALID_STATUS_TRANSITION', 'FORBIDDEN'],
});

registerEndpoint({
  method: 'post',
  path: '/couriers/me/orders/:id/return',
  idempotent: true,
  operationId: 'confirmCourierReturn',
  summary: 'Confirm a returning order is back at the pickup, with proof',
  description:
    'Only a `returning` order (else 409 INVALID_STATUS_TRANSITION); proven like a delivery: each of photo and signature as a URL or an uploaded proof, ' +
    'within `geofence_radius` metres of the pickup where it is precise (unless `bypass`). The order ends `returned`.',
  tags: TAG,
  auth: 'courierToken',
  params: ownOrder,
  body: returnBody,
  bodyExample: { coords: { lat: -33.4372, lng: -70.6506 }, photo_url: 'https://cdn.example.com/pod/return-123.jpg', signature_url: 'https://cdn.example.com/pod/return-sig-123.png' },
  responses: { 200: { description: 'Returned', schema: orderStatusResponseSchema } },
  errors: ['ORDER_NOT_FOUND', 'GEOFENCE_FAILED', 'INVALID_STATUS_TRANSITION', 'FORBIDDEN'],
});

registerEndpoint({
  method: 'post',
  path: '/couriers/me/orders/:id/proof',
  operationId: 'uploadCourierProof',
  summary: 'Upload a proof of delivery image (photo or signature) for your order',
  description:
    'The body is the raw image (Content-Type image/jpeg, image/png or image/webp), checked by its bytes: another type, or bytes of another ' +
    'type than declared, or bytes that do not decode, is 415. At most PROOF_MAX_BYTES (default 2 MB, else 413). The image is decoded and ' +
    'encoded again in its format (long side at most PROOF_MAX_SIDE px, default 1600; orientation applied): no metadata and nothing hidden ' +
    'or appended survives, so `bytes`/`sha256` describe the stored image. Budgets: PROOF_PHOTOS_PER_STOP photos and PROOF_SIGNATURES_PER_STOP ' +
    'signatures per stop (default 5 and 2; the current stop of a multi-stop order, the pickup on a return, else the drop-off), else 409 ' +
    '`PROOF_QUOTA_EXCEEDED`; PROOF_COURIER_DAILY_BYTES received per courier and UTC day (default 50 MiB), else 429 `PROOF_BUDGET_EXCEEDED` ' +
    'with Retry-After; the store past PROOF_STORE_MAX_BYTES or its disk under PROOF_MIN_FREE_BYTES free, 507 `PROOF_STORAGE_FULL`. ' +
    'An upload no delivery names is removed after PROOF_UNUSED_HOURS (default 12). ' +
    'Then name the proof in the delivery as `photo_proof_id` / `signature_proof_id`.',
  tags: TAG,
  auth: 'courierToken',
  params: ownOrder,
  query: z.object({ kind: z.enum(['photo', 'signature']) }),
  responses: {
    201: {
      description: 'Stored',
      schema: z.object({
        success: z.literal(true),
        proof_id: z.string(),
        kind: z.enum(['photo', 'signature']),
        content_type: z.enum(['image/jpeg', 'image/png', 'image/webp']),
        bytes: z.number().int(),
        sha256: z.string(),
      }),
    },
  },
  errors: ['ORDER_NOT_FOUND', 'INVALID_STATUS_TRANSITION', 'PROOF_QUOTA_EXCEEDED', 'PROOF_BUDGET_EXCEEDED', 'PROOF_STORAGE_FULL'],
});

registerEndpoint({
  method: 'get',
  path: '/proofs/:id',
  operationId: 'getProofImage',
  summary: 'A hosted proof image, through its signed, expiring link',
  description: 'Links appear as photo_url / signature_url of a delivery proof (REST order details, GraphQL, webhooks). Tampered: 404; expired: 403.',
  tags: TAG,
  auth: 'public',
  params: z.object({ id: z.string() }),
  query: z.object({ expires: z.string(), sig: z.string() }),
  responses: {
    200: { description: 'The image bytes (Cache-Control: private, nosniff, CSP default-src none)', contentType: 'image/*' },
  },
  errors: ['NOT_FOUND', 'FORBIDDEN'],
});
