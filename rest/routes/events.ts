import type { Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { requireMerchant } from '../middleware/auth.js';
import { presentFeedEvent } from '../presenters/event.js';
import { principalOf, sendOk } from '../respond.js';
import { listEventsQuery } from '../wire/events.js';

/** The replayable event feed: the merchant's events of the key's mode, in commit order. */
export function eventRoutes(router: Router, edge: Edge): void {
  router.get('/events', requireMerchant(edge, { level: 'operate' }), async (req, res) => {
    const page = await edge.services.events.listEvents({ principal: principalOf(res), input: listEventsQuery(req.query) });
    sendOk(res, { events: page.events.map(presentFeedEvent), next_cursor: page.endCursor, has_more: page.hasMore });
  });
}
