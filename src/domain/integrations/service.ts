import { createHmac } from 'node:crypto';
import type { Clock } from '../../ports/clock.js';
import type { Store } from '../../ports/store.js';
import type { MerchantPrincipal } from '../auth.js';
import { type SecretBox, safeEqual } from '../credentials.js';
import { AppError, isAppError } from '../errors.js';
import type { QuoteService } from '../quotes.js';
import type { IntegrationName, Merchant, Mode } from '../types.js';
import { parseInput } from '../validation.js';
import { erpRateSchema, toErpRate } from './erp.js';
import { pluginDestinationText, pluginQuoteSchema, pluginWeightKg, toPluginRates } from './plugin.js';
import { draftFromShopifyOrder, isDispatchable, parseStorefrontJson, shopifyOrderSchema } from './storefront-orders.js';
import type { OrderService } from '../orders/service.js';
import { requestHash } from '../idempotency.js';
import { carrierServiceRequestSchema, shopifyAddressText, shopifyWeightKg, toCarrierServiceRates } from './storefront.js';

/** Who called an integration endpoint, as far as the request tells (for moderation). */
export interface IntegrationClient {
  userAgent: string | null;
  pluginVersion: string | null;
  site: string | null;
}

/** Failures that mean "we do not deliver there / that", answered as "no rates" to the storefront. */
const UNSERVICEABLE = new Set(['GEOCODING_FAILED', 'OUTSIDE_SERVICE_AREA', 'WEIGHT_EXCEEDS_CAPACITY']);

const storefrontOrderKey = (shopOrderId: string | number | bigint) => `storefront-order:${shopOrderId}`;

export type IntegrationService = ReturnType<typeof createIntegrationService>;

export function createIntegrationService(deps: { store: Store; quotes: QuoteService; orders: OrderService; secretBox: SecretBox; clock: Clock }) {
  const { store, quotes, orders, secretBox, clock } = deps;

  async function recordIntegrationCall(options: { merchant: Merchant; mode: Mode; integration: IntegrationName; client: IntegrationClient }) {
    await store.telemetry.record({
      merchantId: options.merchant.id,
      mode: options.mode,
      integration: options.integration,
      site: options.client.site?.slice(0, 200) ?? null,
      pluginVersion: options.client.pluginVersion?.slice(0, 50) ?? null,
      userAgent: options.client.userAgent?.slice(0, 300) ?? null,
      at: clock.now().toISOString(),
    });
  }

  async function quoteForPlugin(options: { principal: MerchantPrincipal; input: unknown }) {
    const input = parseInput(pluginQuoteSchema, options.input);
    const quote = await quotes.quoteRoute({
      merchant: options.principal.merchant,
      mode: options.principal.mode,
      destination: pluginDestinationText(input),
      weightKg: pluginWeightKg(input),
      ...(input.prep_time_mins !== undefined && { prepTimeMins: input.prep_time_mins }),
    });
    return toPluginRates(quote);
  }

  /** Shopify CarrierService: an address or parcel we cannot serve is "no rates", never an error. */
  async function quoteForStorefront(options: { principal: MerchantPrincipal; input: unknown; prepTimeMins?: number }) {
    const input = parseInput(carrierServiceRequestSchema, options.input);
    const { origin, destination } = input.rate;
    if ((destination.country ?? 'CL').toUpperCase() !== 'CL') return [];
    try {
      const quote = await quotes.quoteRoute({
        merchant: options.principal.merchant,
        mode: options.principal.mode,
        ...(!options.principal.merchant.address && { origin: shopifyAddressText(origin) }),
        destination: shopifyAddressText(destination),
        weightKg: shopifyWeightKg(input),
        ...(options.prepTimeMins !== undefined && { prepTimeMins: options.prepTimeMins }),
      });
      return toCarrierServiceRates(quote);
    } catch (error) {
      if (isAppError(error) && UNSERVICEABLE.has(error.code)) return [];
      throw error;
    }
  }

  async function quoteForErp(options: { principal: MerchantPrincipal; input: unknown }) {
    const input = parseInput(erpRateSchema, options.input);
    const quote = await quotes.quoteRoute({
      merchant: options.principal.merchant,
      mode: options.principal.mode,
      destination: input.partner_address,
      weightKg: input.weight_kg ?? 0,
      ...(input.prep_time_mins !== undefined && { prepTimeMins: input.prep_time_mins }),
    });
    return toErpRate(quote);
  }

  /**
   * Shopify's own signature: base64 HMAC-SHA256 of the raw body keyed with the storefront app's
   * shared secret (the merchant setting; what Shopify signs with) or the merchant's API secret, from
   * the shop registered as the merchant's storefront domain. Checked before the body is parsed.
   */
  async function authenticateStorefrontSignature(options: { shopDomain: string | undefined; hmac: string; rawBody: Buffer; mode: Mode }) {
    const invalid = new AppError('INVALID_SIGNATURE', 'Storefront signature or shop domain is invalid');
    const domain = options.shopDomain?.trim().toLowerCase();
    if (!domain) throw invalid;
    const merchant = await store.merchants.findByStorefrontDomain(domain);
    if (!merchant) throw invalid;
    const now = clock.now().toISOString();
    const [apiSecrets, storefrontSecret] = await Promise.all([store.merchants.listSecrets(merchant.id), store.merchants.findStorefrontSecret(merchant.id)]);
    const storefront = storefrontSecret ? [storefrontSecret.current] : [];
    if (storefrontSecret?.previous && storefrontSecret.previousExpiresAt && storefrontSecret.previousExpiresAt > now) storefront.push(storefrontSecret.previous);
    const sealed = [...storefront, ...apiSecrets.filter((s) => !s.expiresAt || s.expiresAt > now).map((s) => s.ciphertext)];
    const given = options.hmac.trim();
    const matches = sealed.some((c) => safeEqual(createHmac('sha256', secretBox.open(c)).update(options.rawBody).digest('base64'), given));
    if (!matches) throw invalid;
    return { kind: 'merchant', merchant, mode: options.mode, keyId: `storefront:${merchant.id}:${options.mode}` } satisfies MerchantPrincipal;
  }

  /**
   * Shopify orders/create: a paid order becomes a dispatch (its Shopify id kept exactly as
   * ecommerce_order_id). The shop order id is the idempotency key, so redelivered webhooks (same
   * X-Shopify-Webhook-Id, or another topic for the same order) create nothing new.
   */
  async function receiveStorefrontOrder(options: { principal: MerchantPrincipal; rawBody: Buffer }) {
    const order = parseInput(shopifyOrderSchema, parseStorefrontJson(options.rawBody.toString('utf8')));
    const verdict = isDispatchable(order);
    if (!verdict.ok) return { created: false as const, ignored: true, reason: verdict.reason, order: null };
    const draft = draftFromShopifyOrder(order);
    try {
      const result = await orders.createOrderFromDraft({
        principal: options.principal,
        draft,
        idempotencyKey: storefrontOrderKey(order.id),
        hash: requestHash({ ...draft }),
        actor: { kind: 'system', id: 'storefront' },
      });
      return { created: result.created, ignored: false, reason: result.created ? null : 'already received', order: result.order };
    } catch (error) {
      // An address we cannot serve is acknowledged (so the shop stops retrying) and reported back.
      if (isAppError(error) && UNSERVICEABLE.has(error.code)) return { created: false as const, ignored: true, reason: error.message, order: null };
      // The shop sent this order again with other content (edited before its redelivery): the
      // dispatch already exists and is not changed. A 4xx would only make Shopify retry, then drop
      // the subscription.
      if (isAppError(error) && error.code === 'IDEMPOTENCY_KEY_REUSED') {
        return { created: false as const, ignored: false, reason: 'already received; changes after the first delivery are not applied', order: await findReceivedOrder(options.principal, order.id) };
      }
      throw error;
    }
  }

  async function findReceivedOrder(principal: MerchantPrincipal, shopOrderId: string | number | bigint) {
    const record = await store.orders.findIdempotencyKey({ merchantId: principal.merchant.id, mode: principal.mode, key: storefrontOrderKey(shopOrderId) });
    const found = record && (await store.orders.findById(record.orderId));
    return found && found.merchantId === principal.merchant.id && found.mode === principal.mode ? found : null;
  }

  return { receiveStorefrontOrder, recordIntegrationCall, quoteForPlugin, quoteForStorefront, quoteForErp, authenticateStorefrontSignature };
}
