import type { Clock } from '../../ports/clock.js';
import type { IdSource } from '../../ports/ids.js';
import type { Store } from '../../ports/store.js';
import type { TrackingLinks } from '../tracking-links.js';
import type { Merchant, Order, OrderEvent, OrderStatus } from '../types.js';
import { momentOf, renderNotification } from './templates.js';
import { DEFAULT_NOTIFICATION_SETTINGS, type Notification, type NotificationChannel, type NotificationSettings } from './types.js';

export type NotificationOutbox = ReturnType<typeof createNotificationOutbox>;

/** The merchant's notification settings (none stored: nothing is sent). */
export function notificationSettingsOf(merchant: Pick<Merchant, 'settings'>): NotificationSettings {
  return merchant.settings.notifications ?? DEFAULT_NOTIFICATION_SETTINGS;
}

/** The recipient's address on a channel, or null when the order has none. */
function recipientOf(order: Order, channel: NotificationChannel): string | null {
  return channel === 'email' ? (order.customer.email ?? null) : order.customer.phone;
}

/**
 * Builds an order change's notifications, one per channel the merchant chose for the moment the
 * change marks, with the text every attempt will send. Like the webhook outbox, the settings are
 * read before the change and the rows are built from the updated order inside the store's
 * transaction (written with the change or not at all). Test-mode rows are `sandboxed`: kept, never sent.
 */
export function createNotificationOutbox(deps: { store: Store; clock: Clock; ids: IdSource; trackingLinks: Pick<TrackingLinks, 'urlOf'> }) {
  const { store, ids } = deps;

  function build(merchant: Merchant, settings: NotificationSettings, order: Order, status: OrderStatus, at: string): Notification[] {
    const moment = momentOf(status);
    if (!moment || !settings.moments.includes(moment)) return [];
    const context = { shop: merchant.name, trackingNumber: order.trackingNumber, trackingUrl: deps.trackingLinks.urlOf(order) };
    const rows: Notification[] = [];
    for (const channel of settings.channels) {
      const recipient = recipientOf(order, channel);
      if (!recipient) continue;
      const { subject, body } = renderNotification(moment, channel, context);
      const sandbox = order.mode === 'test';
      rows.push({
        id: ids.next('ntf'), merchantId: order.merchantId, mode: order.mode, orderId: order.id, moment, channel, recipient, subject, body,
        status: sandbox ? 'sandboxed' : 'pending', attempts: 0, nextAttemptAt: sandbox ? null : at,
        leaseOwner: null, leaseUntil: null, lastError: null, createdAt: at, sentAt: null,
      });
    }
    return rows;
  }

  /**
   * Reads the merchant's settings now; returns the builder of the change's notifications (pure,
   * synchronous), or undefined when the merchant notifies nobody.
   */
  async function prepare(order: Order): Promise<((updated: Order, event: Pick<OrderEvent, 'to' | 'at'>) => Notification[]) | undefined> {
    const merchant = await store.merchants.findById(order.merchantId);
    if (!merchant) return undefined;
    const settings = notificationSettingsOf(merchant);
    if (settings.channels.length === 0 || settings.moments.length === 0) return undefined;
    return (updated, event) => build(merchant, settings, updated, event.to, event.at);
  }

  return { prepare };
}
