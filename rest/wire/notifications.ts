/** The REST wire form of recipient notifications: the settings body and the outbox's query, mapped in one step; also the OpenAPI schemas. */
import { z } from 'zod';
import { listNotificationsQuerySchema, notificationSettingsSchema, type ListNotificationsQuery } from '../../src/domain/notifications/schemas.js';
import type { NotificationSettings } from '../../src/domain/notifications/types.js';
import { parseInput } from '../../src/domain/validation.js';

/** PUT /notifications/settings: the whole settings (both lists; empty lists turn notifications off). */
export const notificationSettingsBody = notificationSettingsSchema;

export function notificationSettingsCommand(body: unknown): NotificationSettings {
  return parseInput(notificationSettingsBody, body);
}

const query = listNotificationsQuerySchema.shape;

export const listNotificationsQueryString = z.strictObject({
  // .describe, not .openapi: this module may load before rest/openapi/registry.ts extends zod.
  limit: query.limit.describe('Notifications per page (default 20, at most 100).'),
  after: query.after.describe('The `next_cursor` of the previous page (a notification id).'),
  order_id: query.orderId.describe("Only this order's notifications (its booking_id)."),
});

export function listNotificationsQuery(q: unknown): ListNotificationsQuery {
  const parsed = parseInput(listNotificationsQueryString, q);
  return { limit: parsed.limit, ...(parsed.after !== undefined && { after: parsed.after }), ...(parsed.order_id !== undefined && { orderId: parsed.order_id }) };
}
