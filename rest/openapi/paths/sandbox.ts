import { z } from 'zod';
import { registerEndpoint } from '../registry.js';
import { sandboxAdvanceResponseSchema } from '../responses-webhooks.js';

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
