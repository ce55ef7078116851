import type { NotificationSettingsView } from '../../src/domain/notifications/service.js';
import type { Notification } from '../../src/domain/notifications/types.js';

/** A notification as the merchant reads it: the recipient is the merchant's own customer's address, as given on the order. */
export function presentNotification(n: Notification) {
  return {
    id: n.id,
    order_id: n.orderId,
    moment: n.moment,
    channel: n.channel,
    to: n.recipient,
    subject: n.subject,
    body: n.body,
    status: n.status,
    block_reason: n.blockReason ?? null,
    attempts: n.attempts,
    next_attempt_at: n.nextAttemptAt,
    last_error: n.lastError,
    created_at: n.createdAt,
    sent_at: n.sentAt,
  };
}

export function presentNotificationSettings(s: NotificationSettingsView) {
  return { channels: s.channels, moments: s.moments, configured_channels: s.configuredChannels, allowed_countries: s.allowedCountries };
}
