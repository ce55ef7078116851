import { z } from 'zod';
import { NOTIFICATION_BLOCK_REASONS, NOTIFICATION_CHANNELS, NOTIFICATION_MOMENTS, NOTIFICATION_STATUSES } from '../../../src/domain/notifications/types.js';
import { listNotificationsQueryString, notificationSettingsBody } from '../../wire/notifications.js';
import { registry, registerEndpoint } from '../registry.js';

const channels = z.array(z.enum(NOTIFICATION_CHANNELS));
const moments = z.array(z.enum(NOTIFICATION_MOMENTS));

export const notificationSettingsSchema = registry.register(
  'NotificationSettings',
  z.object({
    channels: channels.openapi({ description: 'Channels each chosen moment is sent on: `sms`, `whatsapp`, `email` (the order\'s `customer_email`).' }),
    moments: moments.openapi({ description: 'Moments the recipient hears about: `created`, `courier_assigned`, `on_the_way` (picked up), `delivered`, `failed` (cancelled).' }),
    configured_channels: channels.openapi({ description: 'Channels this deployment has a provider for. Live notifications on another channel fail at once; test mode fills the sandbox outbox whatever is configured.' }),
    allowed_countries: z.array(z.string()).openapi({
      description: "Country calling codes the merchant's live SMS and WhatsApp may reach (`56`: Chile, the default); messages to other numbers are `blocked` (`country_not_allowed`). Set by an operator on request; read-only here.",
      example: ['56'],
    }),
  }),
);

const settingsResponse = z.object({ success: z.literal(true), settings: notificationSettingsSchema });

export const notificationSchema = registry.register(
  'Notification',
  z.object({
    id: z.string().openapi({ example: 'ntf_01JHX3Z6Q8R2V4N7W9Y1A3C5E7' }),
    order_id: z.string().openapi({ description: 'The order (booking_id).' }),
    moment: z.enum(NOTIFICATION_MOMENTS),
    channel: z.enum(NOTIFICATION_CHANNELS),
    to: z.string().openapi({ description: "The recipient: the order's phone number (E.164) or email address." }),
    subject: z.string().nullable().openapi({ description: 'Email only.' }),
    body: z.string().openapi({ description: "The message in Spanish (es-CL), with the order's tracking link.", example: 'Tienda Demo: tu pedido TRK-7QK2M9 va en camino. Síguelo en vivo: https://envios.example.cl/track/TRK-7QK2M9' }),
    status: z.enum(NOTIFICATION_STATUSES).openapi({ description: '`sandboxed`: a test-mode message, never sent. Live: `pending` (retried with backoff), `sent`, `failed` (given up), `blocked` (refused by the sending budget: see `block_reason`; never sent).' }),
    block_reason: z.enum(NOTIFICATION_BLOCK_REASONS).nullable().openapi({
      description: 'Why a `blocked` message was refused, or why live mode would refuse a `sandboxed` one: `country_not_allowed` (the number is outside the merchant\'s allowed countries: Chile, +56, unless an operator approved more), `number_hourly_cap`, `number_daily_cap`, `merchant_hourly_cap`, `merchant_daily_cap` (the SMS/WhatsApp caps, `NOTIFY_CAP_*`), `cancelled_early` (the order was cancelled before its message went out, or within `NOTIFY_HOLD_SECONDS` of its creation). Null otherwise.',
      example: 'country_not_allowed',
    }),
    attempts: z.number().int(),
    next_attempt_at: z.iso.datetime({ offset: true }).nullable(),
    last_error: z.string().nullable(),
    created_at: z.iso.datetime({ offset: true }),
    sent_at: z.iso.datetime({ offset: true }).nullable(),
  }),
);

registerEndpoint({
  method: 'get',
  path: '/notifications',
  operationId: 'listNotifications',
  summary: 'Recipient notifications, newest first (test keys: the sandbox outbox)',
  description: `Every message written for the key's mode. Test-mode orders never reach a provider: their messages land here with status
\`sandboxed\`, exactly as they would have been sent. Live messages show their delivery state. Kept \`NOTIFY_RETENTION_DAYS\` (30).`,
  tags: ['Notifications'],
  auth: 'apiKey',
  access: 'profile',
  query: listNotificationsQueryString,
  responses: {
    200: {
      description: 'One page of notifications',
      schema: z.object({ success: z.literal(true), notifications: z.array(notificationSchema), next_cursor: z.string().nullable(), has_more: z.boolean() }),
    },
  },
});

registerEndpoint({
  method: 'get',
  path: '/notifications/settings',
  operationId: 'getNotificationSettings',
  summary: 'Which channels and moments notify the recipient',
  tags: ['Notifications'],
  auth: 'apiKey',
  access: 'profile',
  responses: { 200: { description: 'The settings', schema: settingsResponse } },
});

registerEndpoint({
  method: 'put',
  path: '/notifications/settings',
  operationId: 'updateNotificationSettings',
  summary: 'Choose channels and moments (both lists, replaced whole)',
  description: 'Empty lists turn notifications off. The settings apply to both modes; test-mode messages stay in the sandbox outbox.',
  tags: ['Notifications'],
  auth: 'apiKey',
  access: 'settings',
  body: notificationSettingsBody,
  bodyExample: { channels: ['sms', 'email'], moments: ['created', 'on_the_way', 'delivered', 'failed'] },
  responses: { 200: { description: 'The settings now', schema: settingsResponse } },
});
