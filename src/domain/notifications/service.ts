import type { Clock } from '../../ports/clock.js';
import type { NotificationChannel } from './types.js';
import type { Store } from '../../ports/store.js';
import type { MerchantPrincipal } from '../auth.js';
import { AppError } from '../errors.js';
import { assertPermitted } from '../members/roles.js';
import type { Merchant } from '../types.js';
import { notificationCountriesOf } from './budget.js';
import { notificationSettingsOf } from './outbox.js';
import type { ListNotificationsQuery } from './schemas.js';
import type { NotificationSettings } from './types.js';

export type NotificationService = ReturnType<typeof createNotificationService>;

export type NotificationSettingsView = NotificationSettings & { configuredChannels: NotificationChannel[]; allowedCountries: string[] };

/**
 * The merchant's side of recipient notifications: its settings (channels and moments) and its
 * outbox, newest first, in the caller's mode (test mode: the sandbox outbox, never sent).
 */
export function createNotificationService(deps: {
  store: Store;
  clock: Clock;
  /** The channels this deployment can send on (live mode); test mode accepts every channel. */
  configuredChannels: readonly NotificationChannel[];
  credentialsChanged?: (options: { merchantId: string }) => Promise<void>;
}) {
  const { store, clock } = deps;

  /** The settings, the channels with a provider, and the countries the merchant's live SMS/WhatsApp may reach (an operator's choice). */
  const viewOf = (merchant: Merchant): NotificationSettingsView =>
    Object.assign({}, notificationSettingsOf(merchant), { configuredChannels: [...deps.configuredChannels], allowedCountries: notificationCountriesOf(merchant) });

  async function getNotificationSettings(options: { principal: MerchantPrincipal }): Promise<NotificationSettingsView> {
    assertPermitted(options.principal, 'read');
    const merchant = await store.merchants.findById(options.principal.merchant.id);
    if (!merchant) throw new AppError('MERCHANT_NOT_FOUND', 'Merchant not found');
    return viewOf(merchant);
  }

  async function updateNotificationSettings(options: { principal: MerchantPrincipal; input: NotificationSettings }) {
    assertPermitted(options.principal, 'manage');
    const settings = { channels: options.input.channels, moments: options.input.moments };
    const updated = await store.merchants.update(options.principal.merchant.id, { settings: { notifications: settings } }, clock.now().toISOString());
    if (!updated) throw new AppError('MERCHANT_NOT_FOUND', 'Merchant not found');
    // Cached principals carry the merchant's settings.
    await deps.credentialsChanged?.({ merchantId: updated.id });
    return viewOf(updated);
  }

  async function listNotifications(options: { principal: MerchantPrincipal; input: ListNotificationsQuery }) {
    assertPermitted(options.principal, 'read');
    const { input } = options;
    const rows = await store.notifications.list({
      merchantId: options.principal.merchant.id,
      mode: options.principal.mode,
      limit: input.limit + 1,
      ...(input.after && { after: input.after }),
      ...(input.orderId && { orderId: input.orderId }),
    });
    const page = rows.slice(0, input.limit);
    return { notifications: page, nextCursor: rows.length > input.limit ? page.at(-1)!.id : null };
  }

  return { getNotificationSettings, updateNotificationSettings, listNotifications };
}
