import { hashToken } from '../credentials.js';
import type { RateLimiter } from '../../ports/rate-limiter.js';
import type { Merchant } from '../types.js';
import {
  DEFAULT_NOTIFICATION_COUNTRIES,
  PHONE_CHANNELS,
  type Notification,
  type NotificationBlockReason,
  type NotificationChannel,
} from './types.js';

/** Live SMS/WhatsApp allowed per number and per merchant, per hour and per day. */
export interface NotificationCaps {
  numberHourly: number;
  numberDaily: number;
  merchantHourly: number;
  merchantDaily: number;
}

export const isPhoneChannel = (channel: NotificationChannel) => PHONE_CHANNELS.includes(channel);

/** The country calling codes the merchant's live messages may reach (absent: Chile alone). */
export function notificationCountriesOf(merchant: Pick<Merchant, 'settings'>): string[] {
  return [...(merchant.settings.notificationCountries ?? DEFAULT_NOTIFICATION_COUNTRIES)];
}

/**
 * Whether an E.164 number is in one of the calling codes. ITU calling codes are prefix-free (no
 * code begins another), so a plain prefix test is exact: +1 is the whole NANP, +56 Chile.
 */
export function countryAllowed(phone: string, countries: readonly string[]): boolean {
  return countries.some((code) => phone.startsWith(`+${code}`));
}

/** A number as logs may show it: the first three digits and the last two ("+569…78"), never the rest. */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  return digits.length < 7 ? '+…' : `+${digits.slice(0, 3)}…${digits.slice(-2)}`;
}

const HOUR = 3600;
const DAY = 86_400;

/**
 * The per-number and per-merchant caps on live SMS/WhatsApp, counted through the RateLimiter port
 * (Redis across nodes, memory on one node). A message takes one unit from each of its four buckets
 * in turn; the first spent one refuses it, and the units already taken are given back, so a refused
 * message counts against nothing. Numbers are keyed by their SHA-256 (no phone number in Redis).
 */
export function createNotificationBudget(deps: { limiter: RateLimiter; caps: NotificationCaps }) {
  const { limiter, caps } = deps;

  async function take(n: Pick<Notification, 'merchantId' | 'recipient'>): Promise<NotificationBlockReason | null> {
    const number = `ntf:n:${hashToken(n.recipient).slice(0, 32)}`;
    const merchant = `ntf:m:${n.merchantId}`;
    const buckets: Array<{ key: string; limitPerMin: number; windowSeconds: number; reason: NotificationBlockReason }> = [
      { key: `${number}:h`, limitPerMin: caps.numberHourly, windowSeconds: HOUR, reason: 'number_hourly_cap' },
      { key: `${number}:d`, limitPerMin: caps.numberDaily, windowSeconds: DAY, reason: 'number_daily_cap' },
      { key: `${merchant}:h`, limitPerMin: caps.merchantHourly, windowSeconds: HOUR, reason: 'merchant_hourly_cap' },
      { key: `${merchant}:d`, limitPerMin: caps.merchantDaily, windowSeconds: DAY, reason: 'merchant_daily_cap' },
    ];
    for (let i = 0; i < buckets.length; i++) {
      const bucket = buckets[i]!;
      const { reason: _reason, ...options } = bucket;
      if ((await limiter.consume(options)).allowed) continue;
      // The refused unit and the ones taken before it go back: a blocked message spends nothing.
      await Promise.all(buckets.slice(0, i + 1).map(({ reason: _r, ...taken }) => limiter.reward(taken)));
      return bucket.reason;
    }
    return null;
  }

  return { take };
}

export type NotificationBudget = ReturnType<typeof createNotificationBudget>;

/** What the runner is told of each refused live message: never the recipient, only its masked form. */
export interface NotificationRefusal {
  id: string;
  merchantId: string;
  orderId: string;
  channel: NotificationChannel;
  moment: Notification['moment'];
  reason: NotificationBlockReason;
  /** The number masked (maskPhone) or, for email, the address's domain only. */
  to: string;
}

export function refusalOf(n: Notification, reason: NotificationBlockReason): NotificationRefusal {
  const to = isPhoneChannel(n.channel) ? maskPhone(n.recipient) : `…@${n.recipient.split('@').pop() ?? ''}`;
  return { id: n.id, merchantId: n.merchantId, orderId: n.orderId, channel: n.channel, moment: n.moment, reason, to };
}
