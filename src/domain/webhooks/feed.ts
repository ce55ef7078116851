import { z } from 'zod';
import type { EventFeedRepository, FeedEvent, Store } from '../../ports/store.js';

export type { FeedEvent };
import type { MerchantPrincipal } from '../auth.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validation.js';

export const FEED_PAGE_DEFAULT = 100;
export const FEED_PAGE_MAX = 1000;

/** The feed's query: where to start (an end cursor of an earlier page; none = the oldest event kept) and how many. */
export const listEventsQuerySchema = z.strictObject({
  after: z.string().min(1).max(64).optional(),
  limit: z.number().int().min(1).max(FEED_PAGE_MAX).default(FEED_PAGE_DEFAULT),
});
export type ListEventsQuery = z.input<typeof listEventsQuerySchema>;

/**
 * Cursors are opaque to clients: a version tag and the position, base64url. A position is the
 * store's (per merchant and mode), so a cursor means the same on every node.
 */
const CURSOR_TAG = 'ef1:';
export const cursorOf = (position: number): string => Buffer.from(`${CURSOR_TAG}${position}`).toString('base64url');

function positionOf(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const position = text.startsWith(CURSOR_TAG) ? Number(text.slice(CURSOR_TAG.length)) : NaN;
  if (!Number.isSafeInteger(position) || position < 0 || cursorOf(position) !== cursor) {
    throw new AppError('VALIDATION_ERROR', 'Invalid request: after', { fields: [{ field: 'after', message: 'not a cursor of this feed' }] });
  }
  return position;
}

export interface EventPage {
  events: FeedEvent[];
  /** Where the next read starts: the last event's cursor, or the cursor given when there is nothing new. */
  endCursor: string;
  hasMore: boolean;
}

export type EventFeed = ReturnType<typeof createEventFeed>;

/**
 * The merchant's replayable event feed (issue #17 item 6): every status change and batch of its
 * mode, in commit order, with the payload webhooks carry in the `event` shape — whether or not an
 * endpoint is registered. Positions have no gaps, so a page that starts beyond `after + 1` means
 * retention removed events the reader never saw: 410 EVENT_CURSOR_EXPIRED, never a silent skip.
 */
export function createEventFeed(deps: { store: Store }) {
  const feed: EventFeedRepository = deps.store.events;

  async function listEvents(options: { principal: MerchantPrincipal; input: ListEventsQuery }): Promise<EventPage> {
    const input = parseInput(listEventsQuerySchema, options.input);
    const scope = { merchantId: options.principal.merchant.id, mode: options.principal.mode };
    const after = input.after === undefined ? 0 : positionOf(input.after);
    const page = await feed.list(Object.assign({ after, limit: input.limit + 1 }, scope));
    if (input.after !== undefined) {
      const first = page[0];
      const last = first ? null : await feed.lastPosition(scope);
      if (last !== null && after > last) {
        throw new AppError('VALIDATION_ERROR', 'Invalid request: after', { fields: [{ field: 'after', message: 'not a cursor of this feed' }] });
      }
      if ((first && first.position > after + 1) || (last !== null && after < last)) {
        throw new AppError('EVENT_CURSOR_EXPIRED', 'Events after this cursor are past the retention period; read from the oldest kept event (no cursor)');
      }
    }
    const events = page.slice(0, input.limit);
    return {
      events,
      endCursor: events.length > 0 ? cursorOf(events.at(-1)!.position) : cursorOf(after),
      hasMore: page.length > input.limit,
    };
  }

  return { listEvents };
}
