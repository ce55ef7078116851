import { z } from 'zod';
import { registerEndpoint } from '../registry.js';
import { stopTrackingResponseSchema, trackingResponseSchema } from '../responses-tracking.js';

registerEndpoint({
  method: 'get',
  path: '/tracking/:reference',
  operationId: 'getTracking',
  summary: 'Track a delivery (public)',
  description: `Public, no credentials. With \`k\`, the capability of the order's \`tracking_url\`
(\`/track/{tracking number}?k=…\`), it draws from that link's own budget (\`TRACKING_LINK_RATE_LIMIT_PER_MIN\`, whatever
the address: customers behind one carrier-grade NAT do not share it). Without it, or with a wrong one, it draws from the
anonymous budget of the client address (checked before the reference is looked up: once it is spent, every reference
gets the same 429, known or not). The reference is a tracking number (\`EXD-XXXX-XXXX-XXXX\`, any
letter case) or a 10-digit order number. Shows status, timeline, ETAs, the courier (name, vehicle, position
while the delivery is under way; as \`phone\` the call relay's number or \`""\`, never the courier's own) and a coarse drop-off point — never customer data.

Live updates: a WebSocket at \`/api/v1/tracking/{reference}/live\` sends \`{"type":"snapshot","tracking":{…this body without success…}}\`,
then \`{"type":"status","status","at"}\` on each change (followed by a fresh snapshot), \`{"type":"eta","estimated_delivery_time","at"}\`
when the live delivery estimate moved (it follows the courier's reports; sent before the position that moved it) and
\`{"type":"position","lat","lng","at"}\` for each courier report. Each connect draws from the same budget as this request (\`?k=\` on the socket's URL: the link's). Close codes: 4404 unknown reference, 4429 too many sockets
from one address (\`MAX_SOCKETS_PER_ADDRESS\`, counted with GraphQL sockets) or budget spent, 1013 server busy.
The customer page is served at \`/track/{reference}\` (outside this API).`,
  tags: ['Tracking'],
  auth: 'public',
  params: z.object({
    reference: z.string().openapi({ description: 'Tracking number or order number.', example: 'EXD-7K3M-Q9PX-2B4T' }),
  }),
  query: z.object({
    k: z
      .string()
      .optional()
      .openapi({ description: "The capability of the order's tracking link (22 characters, from `tracking_url`). A wrong one is not an error: the request is then budgeted per address.", example: 'q3Zl0Xw8cJ2kD1fN9sTtYg' }),
  }),
  responses: { 200: { description: 'The public view of the delivery', schema: trackingResponseSchema } },
  errors: ['ORDER_NOT_FOUND'],
});

registerEndpoint({
  method: 'get',
  path: '/tracking/stops/:orderId/:stopId',
  operationId: 'getStopTracking',
  summary: "Track one stop of a multi-stop order (public, the stop's link)",
  description: `Public, no credentials, but only with \`k\`, the capability of the stop's \`tracking_url\`
(\`/track/stops/{booking_id}/{stop_id}?k=…\`): without it, or with a wrong one, 404 ORDER_NOT_FOUND. Drawn from the
anonymous budget of the client address. Shows this stop's status and ETA, a coarse point and the courier's progress
toward it (stops still ahead, the position while this stop is open): never another stop's address, contact or position.`,
  tags: ['Tracking'],
  auth: 'public',
  params: z.object({
    orderId: z.string().openapi({ description: 'The booking id.', example: 'bk_01JHX3Z6Q8R2V4N7W9Y1A3C5E7' }),
    stopId: z.string().openapi({ description: 'The stop id.', example: 'stp_01JHX3Z6Q8R2V4N7W9Y1A3C5E8' }),
  }),
  query: z.object({ k: z.string().openapi({ description: "The capability of the stop's tracking link (22 characters).", example: 'q3Zl0Xw8cJ2kD1fN9sTtYg' }) }),
  responses: { 200: { description: "The public view of the stop", schema: stopTrackingResponseSchema } },
  errors: ['ORDER_NOT_FOUND'],
});
