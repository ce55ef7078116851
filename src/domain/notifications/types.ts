import type { Mode } from '../types.js';

/** How a recipient is told: a text message, a WhatsApp message, an email. */
export type NotificationChannel = 'sms' | 'whatsapp' | 'email';
export const NOTIFICATION_CHANNELS = ['sms', 'whatsapp', 'email'] as const;

/**
 * The moments of an order a recipient may hear about: created, a courier assigned, on the way
 * (picked up), delivered, and failed (cancelled, or a failed delivery attempt).
 */
export type NotificationMoment = 'created' | 'courier_assigned' | 'on_the_way' | 'delivered' | 'failed';
export const NOTIFICATION_MOMENTS = ['created', 'courier_assigned', 'on_the_way', 'delivered', 'failed'] as const;

/**
 * `pending`: waiting for (another) attempt; `sent`: the provider accepted it; `failed`: given up;
 * `sandboxed`: a test-mode message, kept in the sandbox outbox and never sent; `blocked`: a live
 * message refused by the sending budget (`blockReason` says why), never sent.
 */
export type NotificationStatus = 'pending' | 'sent' | 'failed' | 'sandboxed' | 'blocked';
export const NOTIFICATION_STATUSES = ['pending', 'sent', 'failed', 'sandboxed', 'blocked'] as const;

/**
 * Why a message was refused (issue #39 item 3): the number's country is not among the merchant's
 * allowed ones; the number's or the merchant's hourly or daily cap is spent; the order was cancelled
 * within the hold after its creation (or before its message went out).
 */
export type NotificationBlockReason =
  | 'country_not_allowed'
  | 'number_hourly_cap'
  | 'number_daily_cap'
  | 'merchant_hourly_cap'
  | 'merchant_daily_cap'
  | 'cancelled_early';
export const NOTIFICATION_BLOCK_REASONS = [
  'country_not_allowed', 'number_hourly_cap', 'number_daily_cap', 'merchant_hourly_cap', 'merchant_daily_cap', 'cancelled_early',
] as const;

/** The channels that reach a phone number: the ones the country rule and the caps apply to. */
export const PHONE_CHANNELS: readonly NotificationChannel[] = ['sms', 'whatsapp'];

/** Country calling codes a merchant's live messages may reach without an operator's approval: Chile. */
export const DEFAULT_NOTIFICATION_COUNTRIES: readonly string[] = ['56'];

/** A merchant's choice: which channels, at which moments (none: nothing is sent). */
export interface NotificationSettings {
  channels: NotificationChannel[];
  moments: NotificationMoment[];
}

export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = { channels: [], moments: [] };

/**
 * One message to one recipient: a row of the notification outbox. (orderId, moment, channel) is
 * unique: a moment reached twice (a courier re-assigned) tells the recipient once.
 */
export interface Notification {
  /** `ntf_` + ULID. */
  id: string;
  merchantId: string;
  mode: Mode;
  orderId: string;
  moment: NotificationMoment;
  channel: NotificationChannel;
  /** The phone number (E.164) or email address: never logged. */
  recipient: string;
  /** Email only. */
  subject: string | null;
  body: string;
  status: NotificationStatus;
  attempts: number;
  /** When the next attempt is due (null once sent, failed or sandboxed). */
  nextAttemptAt: string | null;
  leaseOwner: string | null;
  leaseUntil: string | null;
  /**
   * Why it was blocked (status `blocked`); on a `sandboxed` row, why live mode would have blocked
   * it. Absent or null otherwise (rows written before the budget have none).
   */
  blockReason?: NotificationBlockReason | null;
  /** The last attempt's error, the recipient's address removed. */
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
}

/** Why an attempt failed, as a code the apps word in the reader's language (issue #38 item 5); the channel is its parameter. */
export type NotificationErrorCode = 'channel_not_configured';

/** The English text kept in `lastError` (the outbox's documented field) for a channel without a provider. */
export const channelNotConfigured = (channel: NotificationChannel) => `channel ${channel} is not configured`;

/** The code of a notification's last error, when the service wrote it; null for a provider's own words (or no error). */
export function notificationErrorCodeOf(n: Pick<Notification, 'lastError' | 'channel'>): NotificationErrorCode | null {
  return n.lastError !== null && n.lastError === channelNotConfigured(n.channel) ? 'channel_not_configured' : null;
}

/** The dedupe key of a notification. */
export const notificationKey = (n: Pick<Notification, 'orderId' | 'moment' | 'channel'>) => `${n.orderId}:${n.moment}:${n.channel}`;
