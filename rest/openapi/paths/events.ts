import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../../../src/domain/types.js';
import { listEventsQueryString } from '../../wire/events.js';
import { registry, registerEndpoint } from '../registry.js';
import { batchCreatedPayloadSchema, eventPayloadSchema } from '../responses-webhooks.js';

const cursor = z.string().openapi({ description: 'Opaque; the same on every node. Pass as `after` to read what follows.', example: 'ZWYxOjQy' });

export const feedEventSchema = registry.register(
  'FeedEvent',
  z.object({
    id: z.string().openapi({ description: 'The event id: for a status change, the id of the order event (as in GET /orders/{id}/events).', example: 'evt_01JHX3Z6Q8R2V4N7W9Y1A3C5E7' }),
    cursor,
    type: z.enum(WEBHOOK_EVENT_TYPES),
    created_at: z.iso.datetime({ offset: true }),
    order_id: z.string().nullable().openapi({ description: 'The order (booking_id) of an order event; null for batch.created.' }),
    payload: z.union([eventPayloadSchema, batchCreatedPayloadSchema]).openapi({ description: 'Exactly what a webhook with `payload_shape: event` carries.' }),
  }),
);

export const eventFeedResponseSchema = registry.register(
  'EventFeedResponse',
  z.object({
    success: z.literal(true),
    events: z.array(feedEventSchema),
    next_cursor: cursor.openapi({ description: "Where to read next: the last event's cursor, or the `after` given when there was nothing new. Store it." }),
    has_more: z.boolean().openapi({ description: 'More events follow now: read again at once.' }),
  }),
);

registerEndpoint({
  method: 'get',
  path: '/events',
  operationId: 'listEvents',
  summary: "The replayable event feed: the merchant's events of the key's mode, in commit order",
  description: `Every order status change (creation and cancellation included) and every batch created, with the payload webhooks carry in the
\`event\` shape — whether or not an endpoint is registered. Positions are per merchant and mode, without gaps; read from your last
\`next_cursor\` to catch up after an outage (nothing missed, no duplicates, in order). Events are kept as long as webhook deliveries
(\`WEBHOOK_RETENTION_DAYS\`); a cursor whose following events were removed is **410 EVENT_CURSOR_EXPIRED**. Courier positions and ETA
changes are not in the feed (the order always shows its current position and estimate).`,
  tags: ['Webhooks'],
  auth: 'apiKey',
  query: listEventsQueryString,
  responses: { 200: { description: 'One page of events, oldest first', schema: eventFeedResponseSchema } },
  errors: ['EVENT_CURSOR_EXPIRED'],
});
