import type { Clock } from '../../ports/clock.js';
import type { IdSource } from '../../ports/ids.js';
import type { Store } from '../../ports/store.js';
import type { TrackingLinks } from '../tracking-links.js';
import type { Merchant, Order, OrderEvent, OrderStatus } from '../types.js';
import { countryAllowed, isPhoneChannel, notificationCountriesOf, refusalOf, type NotificationRefusal } from './budget.js';
import { momentOf, renderNotification } from './templates.js';
import {
  DEFAULT_NOTIFICATION_SETTINGS,
  type Notification,
  type NotificationBlockReason,
  type NotificationChannel,
  type NotificationSettings,
} from './types.js';

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
 * The change's notification builder (pure, synchronous: the store calls it inside its transaction);
 * `report()`, called once the change is committed, tells the refusals of the rows it last built.
 */
export type NotificationBuilder = ((updated: Order, event: Pick<OrderEvent, 'to' | 'at'>) => Notification[]) & { report(): void };

/**
 * Builds an order change's notifications, one per channel the merchant chose for the moment the
 * change marks, with the text every attempt will send. Like the webhook outbox, the settings are
 * read before the change and the rows are built from the updated order inside the store's
 * transaction (written with the change or not at all). Test-mode rows are `sandboxed`: kept, never sent.
 *
 * The sending budget's write-time rules (issue #39 item 3): a live SMS/WhatsApp to a number outside
 * the merchant's allowed countries is written `blocked` (`country_not_allowed`); the cancellation's
 * message of an order cancelled within `holdMs` of its creation too (`cancelled_early`: the
 * recipient never heard of it). Every live message of an order waits until `holdMs` after its
 * creation, so the worker drops those of an order cancelled by then. A test-mode row keeps
 * `sandboxed` and carries the reason live mode would have blocked it for.
 */
export function createNotificationOutbox(deps: {
  store: Store;
  clock: Clock;
  ids: IdSource;
  trackingLinks: Pick<TrackingLinks, 'urlOf'>;
  /** How long a new order's live messages wait (ms). */
  holdMs?: number;
  /** Told of each live message written `blocked`, after the change is committed. */
  refused?: (refusal: NotificationRefusal) => void;
}) {
  const { store, ids } = deps;
  const holdMs = deps.holdMs ?? 0;

  function blockReasonOf(countries: readonly string[], order: Order, status: OrderStatus, at: string, channel: NotificationChannel, recipient: string): NotificationBlockReason | null {
    if (isPhoneChannel(channel) && !countryAllowed(recipient, countries)) return 'country_not_allowed';
    if (status === 'cancelled' && Date.parse(at) - Date.parse(order.createdAt) < holdMs) return 'cancelled_early';
    return null;
  }

  function build(merchant: Merchant, settings: NotificationSettings, order: Order, status: OrderStatus, at: string): Notification[] {
    const moment = momentOf(status);
    if (!moment || !settings.moments.includes(moment)) return [];
    const context = { shop: merchant.name, trackingNumber: order.trackingNumber, trackingUrl: deps.trackingLinks.urlOf(order) };
    const countries = notificationCountriesOf(merchant);
    const due = new Date(Math.max(Date.parse(at), Date.parse(order.createdAt) + holdMs)).toISOString();
    const rows: Notification[] = [];
    for (const channel of settings.channels) {
      const recipient = recipientOf(order, channel);
      if (!recipient) continue;
      const { subject, body } = renderNotification(moment, channel, context);
      const sandbox = order.mode === 'test';
      const blockReason = blockReasonOf(countries, order, status, at, channel, recipient);
      const status_ = sandbox ? 'sandboxed' : blockReason ? 'blocked' : 'pending';
      rows.push({
        id: ids.next('ntf'), merchantId: order.merchantId, mode: order.mode, orderId: order.id, moment, channel, recipient, subject, body,
        status: status_, blockReason, attempts: 0, nextAttemptAt: status_ === 'pending' ? due : null,
        leaseOwner: null, leaseUntil: null, lastError: null, createdAt: at, sentAt: null,
      });
    }
    return rows;
  }

  /**
   * Reads the merchant's settings now; returns the builder of the change's notifications (pure,
   * synchronous), or undefined when the merchant notifies nobody.
   */
  async function prepare(order: Order): Promise<NotificationBuilder | undefined> {
    const merchant = await store.merchants.findById(order.merchantId);
    if (!merchant) return undefined;
    const settings = notificationSettingsOf(merchant);
    if (settings.channels.length === 0 || settings.moments.length === 0) return undefined;
    // A transaction may call the builder again (a retried MongoDB transaction): the last rows count.
    let built: Notification[] = [];
    const builder = (updated: Order, event: Pick<OrderEvent, 'to' | 'at'>) => (built = build(merchant, settings, updated, event.to, event.at));
    return Object.assign(builder, {
      report() {
        for (const n of built) if (n.status === 'blocked' && n.blockReason) deps.refused?.(refusalOf(n, n.blockReason));
        built = [];
      },
    });
  }

  return { prepare };
}
