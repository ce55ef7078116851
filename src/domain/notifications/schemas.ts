import { z } from 'zod';
import { idCursorSchema } from '../cursors.js';
import { NOTIFICATION_CHANNELS, NOTIFICATION_MOMENTS } from './types.js';

/** A merchant's notification settings: each channel and moment at most once. */
export const notificationSettingsSchema = z.strictObject({
  channels: z.array(z.enum(NOTIFICATION_CHANNELS)).max(NOTIFICATION_CHANNELS.length).transform((v) => [...new Set(v)]),
  moments: z.array(z.enum(NOTIFICATION_MOMENTS)).max(NOTIFICATION_MOMENTS.length).transform((v) => [...new Set(v)]),
});

export const NOTIFICATION_PAGE_MAX = 100;

/** A page of the notification outbox, newest first; `after` is the id of the last one of the previous page. */
export const listNotificationsQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(NOTIFICATION_PAGE_MAX).default(20),
  after: idCursorSchema('ntf').optional(),
  orderId: z.string().trim().min(1).max(64).optional(),
});
export type ListNotificationsQuery = z.output<typeof listNotificationsQuerySchema>;
