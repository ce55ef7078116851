import { z } from 'zod';
import { absent, registerEndpoint, registry } from '../registry.js';
import { sandboxAdvanceResponseSchema, webhookDeliverySchema } from '../responses-webhooks.js';
import { orderEventSchema } from '../responses-orders.js';
import { SANDBOX_SCENARIOS } from '../../../src/domain/sandbox-runs.js';
import { ORDER_STATUSES } from '../../../src/domain/types.js';
import { sandboxRunBody } from '../../wire/sandbox.js';
import { createOrderForms } from '../request-forms.js';

const { order: _order, order_id: orderIdField, ...runFields } = sandboxRunBody.shape;
/** The body's two forms (`oneOf`), as the create-order forms: a generated client builds one or the other, and Form A's `order` is POST /orders' body forms. */
const sandboxRunForms = z
  .union([
    registry.register('SandboxRunFormA', z.strictObject({ ...runFields, order: createOrderForms.openapi({ description: 'The order to create and play, exactly as the body of POST /orders (its forms).' }), order_id: absent('Form B only: Form A gives `order`.') })
      .openapi({ description: 'Form A: create the `order` (the body of POST /orders) and play it.' })),
    registry.register('SandboxRunFormB', z.strictObject({ ...runFields, order_id: orderIdField.unwrap(), order: absent('Form A only: Form B gives `order_id`.') })
      .openapi({ description: 'Form B: play the merchant\'s existing test order `order_id`.' })),
  ])
  .openapi({}, { unionPreferredType: 'oneOf' });

registerEndpoint({
  method: 'post',
  path: '/sandbox/orders/:id/advance',
  idempotent: true,
  operationId: 'advanceSandboxOrder',
  summary: 'Sandbox: move a test order one step through its lifecycle',
  description: `Test keys only (a live key gets 403 FORBIDDEN). \`new\` is dispatched to a sandbox courier (409 CONFLICT when none is
free); then assigned → arrived_pickup → picked_up → arrived_dropoff → completed, one step per call, with the same history, tracking
updates and webhooks as a real courier's. 409 INVALID_STATUS_TRANSITION once the order is completed or cancelled. The simulator
also drives sandbox orders on its own, at the merchant's \`sandbox_speed\`.`,
  tags: ['Sandbox'],
  auth: 'apiKey',
  params: z.object({ id: z.string().openapi({ description: 'Any identifier of the order (as GET /orders/{id}).', example: 'bk_01JHX3Z6Q8R2V4N7W9Y1A3C5E7' }) }),
  responses: { 200: { description: 'The order after the step', schema: sandboxAdvanceResponseSchema } },
  errors: ['ORDER_NOT_FOUND', 'FORBIDDEN', 'CONFLICT', 'INVALID_STATUS_TRANSITION'],
});

const sandboxRunResponseSchema = registry.register(
  'SandboxRunResponse',
  z.object({
    success: z.literal(true),
    run: z.object({
      id: z.string().openapi({ description: 'The run id (`run_` + ULID on the virtual clock).' }),
      scenario: z.enum(SANDBOX_SCENARIOS),
      seed: z.string(),
      start_time: z.iso.datetime({ offset: true }),
      end_time: z.iso.datetime({ offset: true }).openapi({ description: 'The virtual time the run ended at.' }),
      booking_id: z.string(),
      tracking_number: z.string(),
      status: z.enum(ORDER_STATUSES).openapi({ description: 'The order\'s status at the end: `completed`, `cancelled` or `returned`.' }),
      events: z.array(orderEventSchema).openapi({ description: 'The order\'s history (GET /orders/{id}/events), with virtual times.' }),
      positions: z.array(z.object({ at: z.iso.datetime({ offset: true }), lat: z.number(), lng: z.number() })).openapi({ description: 'Every position the run\'s courier reported.' }),
      webhooks: z.array(webhookDeliverySchema).openapi({
        description: 'Every webhook delivery the run wrote, in the order written (their `id`s sort in that order too), with the exact body each attempt sends; they are due when the run ends (held while it plays) and appear in GET /webhooks/deliveries.',
      }),
    }),
  }),
);

registerEndpoint({
  method: 'post',
  path: '/sandbox/runs',
  idempotent: true,
  operationId: 'startSandboxRun',
  summary: 'Sandbox: play a whole delivery at once on a virtual clock (deterministic)',
  description: `Test keys only (a live key gets 403 FORBIDDEN). Creates the \`order\` (the body of POST /orders), or takes an existing one (\`order_id\`, below), and plays the
\`scenario\` from \`start_time\` on a virtual clock, in well under a second: every status change, courier position (every 10 virtual
seconds), ETA change and webhook, through the same services as a real order — so the order's history, the event feed
(GET /events) and the webhook log show it as any other, and webhook bodies and signatures are those of a real run. The run's
couriers are its own (plate \`RUN-…\`), driving at the merchant's \`sandbox_speed\`.

**Deterministic:** every id, order and tracking number is drawn from a stream keyed by the merchant, the \`seed\`, the scenario,
\`start_time\` and the order: the same request gives byte-identical webhook bodies (and the same \`webhook-id\`s). A request is therefore
played once per merchant (409 CONFLICT when played again: change the seed). The \`webhook-timestamp\` header is the real time of
each attempt (receivers reject timestamps more than 5 minutes off their clock); the body's \`timestamp\` is the virtual one.

Scenarios: \`delivered\`, \`delivered_with_pin\` (the order gets a delivery PIN; the simulated recipient gives it),
\`cancelled_after_assignment\` (the merchant cancels while the courier drives to the pickup), \`courier_reassigned\` (the first courier
drops out before the pickup, a second one delivers), \`late_with_eta_changes\` (the courier crawls after the pickup: \`order.eta_changed\`
to endpoints subscribed to it), \`failed_attempt_then_return\` (nobody answers at the door: the courier reports a failed attempt, the
order's policy \`return\` sends it back, and the return is proven at the pickup; the run ends \`returned\`). An order that is not dispatched when created (scheduled with \`pickup_after\`, or held for batching) answers 409 CONFLICT.

**An existing order (Form B):** \`order_id\` instead of \`order\` (exactly one of the two, else 400 VALIDATION_ERROR) plays the
merchant's own test order, which must still be \`new\` and not dispatched, scheduled or held for batching (409 CONFLICT); a live
order or another merchant's is 404 ORDER_NOT_FOUND. The run's ids and times are still from the keyed stream and the virtual clock,
but the order keeps its own ids, numbers and tracking number: byte-identical output is promised for created orders only.`,
  tags: ['Sandbox'],
  auth: 'apiKey',
  body: sandboxRunForms,
  bodyExample: {
    scenario: 'delivered', seed: 'ci-42', start_time: '2026-01-15T12:00:00Z',
    order: { dropoff_address: 'Av. Apoquindo 3000, Las Condes', customer_name: 'Ana Pérez', customer_phone: '+56987654321', payment_mode: 'prepaid' },
  },
  responses: { 201: { description: 'The run, played to its end', schema: sandboxRunResponseSchema } },
  errors: ['FORBIDDEN', 'CONFLICT', 'ORDER_NOT_FOUND', 'GEOCODING_FAILED', 'OUTSIDE_SERVICE_AREA', 'WEIGHT_EXCEEDS_CAPACITY', 'QUOTE_NOT_FOUND', 'QUOTE_EXPIRED', 'QUOTE_MISMATCH', 'DELIVERY_WINDOW_UNREACHABLE'],
});
