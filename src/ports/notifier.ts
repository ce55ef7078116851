import type { NotificationChannel } from '../domain/notifications/types.js';

/** One message as a channel's provider receives it. */
export interface OutgoingMessage {
  channel: NotificationChannel;
  /** E.164 phone number (sms, whatsapp) or email address. */
  to: string;
  /** Email only. */
  subject: string | null;
  body: string;
  /** Stable across retries (the provider's idempotency key where it has one). */
  id: string;
}

/** What a provider answered: accepted, or an error (retryable unless `permanent`). */
export type SendOutcome = { ok: true; providerId: string | null } | { ok: false; error: string; permanent?: boolean };

/**
 * Sends recipient notifications. One adapter per channel (a Twilio-compatible SMS API, the WhatsApp
 * Cloud API, SMTP); `channels` lists the ones configured. Never throws: failures are outcomes.
 */
export interface Notifier {
  readonly channels: readonly NotificationChannel[];
  send(message: OutgoingMessage): Promise<SendOutcome>;
}
