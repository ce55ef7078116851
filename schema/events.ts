import { cursorOf, type EventPage, type FeedEvent } from '../src/domain/webhooks/feed.js';
import { builder } from './builder.js';
import { merchantOf } from './merchants.js';
import { PageInfoRef } from './orders.js';
import { WebhookEventEnum } from './webhooks.js';

const FeedEventRef = builder.objectRef<FeedEvent>('FeedEvent').implement({
  description: "One event of the merchant's feed: what webhooks carry in the `event` shape.",
  fields: (t) => ({
    id: t.exposeID('id', { description: 'For a status change, the id of the order event (as in Order.events).' }),
    type: t.field({ type: WebhookEventEnum, resolve: (e) => e.type }),
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
