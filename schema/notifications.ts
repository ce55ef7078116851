import { listNotificationsQuerySchema, notificationSettingsSchema } from '../src/domain/notifications/schemas.js';
import type { NotificationSettingsView } from '../src/domain/notifications/service.js';
import {
  NOTIFICATION_BLOCK_REASONS,
  NOTIFICATION_CHANNELS,
  NOTIFICATION_MOMENTS,
  NOTIFICATION_STATUSES,
  notificationErrorCodeOf,
  type Notification,
} from '../src/domain/notifications/types.js';
import { builder } from './builder.js';
import { commandOf } from './commands.js';
import { merchantOf } from './merchants.js';

const ChannelEnum = builder.enumType('NotificationChannel', { values: NOTIFICATION_CHANNELS });
const MomentEnum = builder.enumType('NotificationMoment', { values: NOTIFICATION_MOMENTS });
const StatusEnum = builder.enumType('NotificationStatus', {
  description: '`sandboxed`: a test-mode message, never sent. Live: `pending` (retried with backoff), `sent`, `failed` (given up), `blocked` (refused by the sending budget, never sent).',
  values: NOTIFICATION_STATUSES,
});
const BlockReasonEnum = builder.enumType('NotificationBlockReason', {
  description: 'Why the sending budget refused a live message (or would refuse a sandboxed one): the country, a cap of the number or the merchant, or an order cancelled before its message went out.',
  values: NOTIFICATION_BLOCK_REASONS,
});

const NotificationRef = builder.objectRef<Notification>('Notification').implement({
  description: "A message to an order's recipient, in Spanish with the tracking link (as GET /notifications).",
  fields: (t) => ({
    id: t.exposeID('id'),
    orderId: t.exposeID('orderId'),
    moment: t.field({ type: MomentEnum, resolve: (n) => n.moment }),
    channel: t.field({ type: ChannelEnum, resolve: (n) => n.channel }),
    to: t.exposeString('recipient', { description: "The order's phone number or email address." }),
    subject: t.exposeString('subject', { nullable: true }),
    body: t.exposeString('body'),
    status: t.field({ type: StatusEnum, resolve: (n) => n.status }),
    blockReason: t.field({
      type: BlockReasonEnum,
      nullable: true,
      description: 'Why a `blocked` message was refused, or why live mode would refuse a `sandboxed` one; null otherwise.',
      resolve: (n) => n.blockReason ?? null,
    }),
    attempts: t.exposeInt('attempts'),
    nextAttemptAt: t.field({ type: 'DateTime', nullable: true, resolve: (n) => n.nextAttemptAt }),
    lastError: t.exposeString('lastError', { nullable: true }),
    lastErrorCode: t.string({
      nullable: true,
      description: "The last error's code, to word it in the reader's language (channel_not_configured: the channel named by `channel` has no provider on this server); null for a provider's own words.",
      resolve: (n) => notificationErrorCodeOf(n),
    }),
    createdAt: t.field({ type: 'DateTime', resolve: (n) => n.createdAt }),
    sentAt: t.field({ type: 'DateTime', nullable: true, resolve: (n) => n.sentAt }),
  }),
});

const NotificationPageRef = builder.objectRef<{ notifications: Notification[]; nextCursor: string | null }>('NotificationPage').implement({
  fields: (t) => ({
    nodes: t.field({ type: [NotificationRef], resolve: (p) => p.notifications }),
    nextCursor: t.exposeString('nextCursor', { nullable: true, description: 'Pass as `after` for the next page; null on the last.' }),
  }),
});

const SettingsRef = builder.objectRef<NotificationSettingsView>('NotificationSettings').implement({
  fields: (t) => ({
    channels: t.field({ type: [ChannelEnum], resolve: (s) => s.channels }),
    moments: t.field({ type: [MomentEnum], resolve: (s) => s.moments }),
    configuredChannels: t.field({ type: [ChannelEnum], description: 'Channels this deployment has a provider for (live mode).', resolve: (s) => s.configuredChannels }),
    allowedCountries: t.stringList({
      description: "Country calling codes the merchant's live SMS and WhatsApp may reach (\"56\": Chile, the default); set by an operator, read-only here.",
      resolve: (s) => s.allowedCountries,
    }),
  }),
});

const SettingsInput = builder.inputType('NotificationSettingsInput', {
  fields: (t) => ({
    channels: t.field({ type: [ChannelEnum], required: true }),
    moments: t.field({ type: [MomentEnum], required: true }),
  }),
});

builder.queryFields((t) => ({
  notifications: t.field({
    type: NotificationPageRef,
    description: "Recipient notifications of the key's mode, newest first (test mode: the sandbox outbox, never sent).",
    authScopes: { merchant: true },
    errors: {},
    args: { first: t.arg.int({ description: 'Default 20, at most 100.' }), after: t.arg.string(), orderId: t.arg.id() },
    resolve: (_r, args, ctx) => {
      const input = commandOf(listNotificationsQuerySchema, {
        ...(args.first != null && { limit: args.first }),
        ...(args.after != null && { after: args.after }),
        ...(args.orderId != null && { orderId: String(args.orderId) }),
      });
      return ctx.services.notifications.listNotifications({ principal: merchantOf(ctx, 'profile'), input });
    },
  }),
  notificationSettings: t.field({
    type: SettingsRef,
    authScopes: { merchant: true },
    errors: {},
    resolve: (_r, _a, ctx) => ctx.services.notifications.getNotificationSettings({ principal: merchantOf(ctx, 'profile') }),
  }),
}));

builder.mutationFields((t) => ({
  updateNotificationSettings: t.field({
    type: SettingsRef,
    description: 'Chooses the channels and moments (both lists, replaced whole; empty lists turn notifications off).',
    authScopes: { merchant: true },
    errors: {},
    args: { input: t.arg({ type: SettingsInput, required: true }) },
    resolve: (_r, { input }, ctx) =>
      ctx.services.notifications.updateNotificationSettings({ principal: merchantOf(ctx, 'settings'), input: commandOf(notificationSettingsSchema, input) }),
  }),
}));
