import { cursorOf, type EventPage, type FeedEvent } from '../src/domain/webhooks/feed.js';
import { builder } from './builder.js';
import { merchantOf } from './merchants.js';
import { PageInfoRef } from './orders.js';

/**
 * The types the feed carries: status changes and batches. Courier positions and ETA changes are
 * webhooks only (not changes of record: see docs/decisions/0026-a-replayable-event-feed.md).
 */
const FEED_EVENT_TYPES = ['order.status_changed', 'batch.created'] as const;
type FeedEventType = (typeof FEED_EVENT_TYPES)[number];
const isFeedEventType = (type: string): type is FeedEventType => (FEED_EVENT_TYPES as readonly string[]).includes(type);
const FeedEventTypeEnum = builder.enumType('FeedEventType', {
  description: 'What the feed carries: order.status_changed and batch.created (order.courier_location and order.eta_changed are webhooks only).',
  values: Object.fromEntries(FEED_EVENT_TYPES.map((v) => [v.replace('.', '_').toUpperCase(), { value: v }])) as Record<string, { value: FeedEventType }>,
});

const FeedEventRef = builder.objectRef<FeedEvent>('FeedEvent').implement({
  description: "One event of the merchant's feed: what webhooks carry in the `event` shape.",
  fields: (t) => ({
    id: t.exposeID('id', { description: 'For a status change, the id of the order event (as in Order.events).' }),
    type: t.field({
      type: FeedEventTypeEnum,
      resolve: (e) => {
        if (!isFeedEventType(e.type)) throw new Error(`Feed event ${e.id} has type ${e.type}, which the feed does not carry`);
        return e.type;
      },
    }),
    createdAt: t.field({ type: 'DateTime', resolve: (e) => e.at }),
    orderId: t.exposeID('orderId', { nullable: true }),
    payload: t.exposeString('body', { description: 'The webhook body (JSON text, `event` shape), exactly as sent.' }),
  }),
});
const FeedEdgeRef = builder.objectRef<FeedEvent>('FeedEventEdge').implement({
  fields: (t) => ({ cursor: t.string({ resolve: (e) => cursorOf(e.position) }), node: t.field({ type: FeedEventRef, resolve: (e) => e }) }),
});
const FeedConnectionRef = builder.objectRef<EventPage>('FeedEventConnection').implement({
  fields: (t) => ({
    edges: t.field({ type: [FeedEdgeRef], resolve: (p) => p.events }),
    nodes: t.field({ type: [FeedEventRef], resolve: (p) => p.events }),
    pageInfo: t.field({
      type: PageInfoRef,
      description: 'endCursor is never null: store it and read `after` it to catch up (also when nothing was new).',
      resolve: (p) => ({ hasNextPage: p.hasMore, endCursor: p.endCursor }),
    }),
  }),
});

builder.queryFields((t) => ({
  events: t.field({
    type: FeedConnectionRef,
    description: "The replayable event feed of the key's mode, in commit order (as GET /events): every status change and batch. EVENT_CURSOR_EXPIRED when events after `after` are past retention.",
    authScopes: { merchant: true },
    errors: {},
    args: { after: t.arg.string(), first: t.arg.int({ description: 'Default 100, at most 1000.' }) },
    resolve: (_r, args, ctx) =>
      ctx.services.events.listEvents({ principal: merchantOf(ctx, 'operate'), input: { after: args.after ?? undefined, ...(args.first != null && { limit: args.first }) } }),
  }),
}));
