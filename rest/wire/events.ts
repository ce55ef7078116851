/** The REST wire form of the event feed's query, mapped in one step; also the OpenAPI query. */
import { z } from 'zod';
import { FEED_PAGE_DEFAULT, FEED_PAGE_MAX, listEventsQuerySchema, type ListEventsQuery } from '../../src/domain/webhooks/feed.js';
import { parseInput } from '../../src/domain/validation.js';

export const listEventsQueryString = z.strictObject({
  // .describe, not .openapi: this module may load before rest/openapi/registry.ts extends zod.
  after: listEventsQuerySchema.shape.after.describe('The `next_cursor` of an earlier page (opaque). Leave it out to start at the oldest event kept.'),
  limit: z.coerce.number().int().min(1).max(FEED_PAGE_MAX).default(FEED_PAGE_DEFAULT).describe(`Events per page (default ${FEED_PAGE_DEFAULT}, at most ${FEED_PAGE_MAX}).`),
});

export function listEventsQuery(query: unknown): ListEventsQuery {
  const q = parseInput(listEventsQueryString, query);
  return { after: q.after, limit: q.limit };
}
