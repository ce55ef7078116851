import { cursorOf, type FeedEvent } from '../../src/domain/webhooks/feed.js';

/** A feed event: its id, cursor, type and time, and the payload exactly as webhooks carry it in the `event` shape. */
export function presentFeedEvent(e: FeedEvent) {
  return { id: e.id, cursor: cursorOf(e.position), type: e.type, created_at: e.at, order_id: e.orderId, payload: JSON.parse(e.body) as unknown };
}
