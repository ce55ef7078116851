import { z } from 'zod';
import type { Clock } from '../../ports/clock.js';
import type { IdSource } from '../../ports/ids.js';
import type { Store } from '../../ports/store.js';
import type { WebhookReach, WebhookSender } from '../../ports/webhook-sender.js';
import type { MerchantPrincipal } from '../auth.js';
import { AppError } from '../errors.js';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_SIGNINGS, type Mode, type WebhookEndpoint, type WebhookEventType } from '../types.js';
import { isReachable } from './address-policy.js';
import { assertPermitted } from '../members/roles.js';
import { merchantScope, type IdempotencyService, type IdempotentCall } from '../idempotency.js';

/** A merchant may register this many endpoints per mode. */
export const MAX_ENDPOINTS = 10;

/** Why a URL is refused, as its field's message (the console words each one: web/shared/catalog.ts). */
export const URL_REASONS = {
  https: 'live webhook URLs must use https',
  credentials: 'credentials in the URL are not allowed',
  private: 'the URL points at a private, loopback or link-local address',
  privateSandbox: "the URL points at a private or link-local address (sandbox webhooks may reach this machine's loopback, nothing else private)",
} as const;

/** Register an endpoint (REST maps its snake_case body onto it in rest/wire/webhooks.ts). */
export const createEndpointCommandSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/ }).max(2000),
  description: z.string().trim().max(200).nullable().optional(),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1).max(WEBHOOK_EVENT_TYPES.length).optional(),
  payloadShape: z.enum(['event', 'flat']).optional(),
  signing: z.enum(WEBHOOK_SIGNINGS).optional(),
  enabled: z.boolean().optional(),
});
export type CreateEndpointCommand = z.output<typeof createEndpointCommandSchema>;
export const updateEndpointCommandSchema = createEndpointCommandSchema
  .extend({ url: createEndpointCommandSchema.shape.url.optional() })
  .refine((v) => Object.values(v).some((value) => value !== undefined), { message: 'at least one field is required' });
export type UpdateEndpointCommand = z.output<typeof updateEndpointCommandSchema>;

export type WebhookEndpointService = ReturnType<typeof createWebhookEndpointService>;

/** The operations of the endpoint commands' idempotency records. */
export const CREATE_ENDPOINT = 'webhooks.create';
export const UPDATE_ENDPOINT = 'webhooks.update';

/**
 * Endpoint management. Production (live) URLs must be https and must not point at private,
 * loopback or link-local addresses — checked here and again on every send; the sandbox may be
 * allowed such URLs by configuration (local development receivers).
 */
export function createWebhookEndpointService(deps: { store: Store; sender: WebhookSender; clock: Clock; ids: IdSource; sandboxReach: WebhookReach; idempotency: IdempotencyService }) {
  const { store, sender, clock, ids, idempotency } = deps;

  async function checkUrl(mode: Mode, raw: string): Promise<void> {
    const url = new URL(raw);
    const reach: WebhookReach = mode === 'test' ? deps.sandboxReach : 'public';
    const invalid = (message: string) => new AppError('VALIDATION_ERROR', message, { fields: [{ field: 'url', message }] });
    if (mode === 'live' && url.protocol !== 'https:') throw invalid(URL_REASONS.https);
    if (url.username || url.password) throw invalid(URL_REASONS.credentials);
    if (reach === 'private') return;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // RFC 6761: `localhost`, `localhost.` and every `*.localhost` name are loopback, whatever DNS says.
    const localhost = /(^|\.)localhost\.?$/.test(host);
    const addresses = /^[\d.]+$/.test(host) || host.includes(':') ? [host] : localhost ? ['127.0.0.1'] : await sender.resolve(host);
    if (addresses.some((a) => !isReachable(a, reach))) {
      throw invalid(reach === 'loopback' ? URL_REASONS.privateSandbox : URL_REASONS.private);
    }
  }

  async function createEndpoint(options: { principal: MerchantPrincipal; input: CreateEndpointCommand } & IdempotentCall): Promise<WebhookEndpoint> {
    const { principal, input } = options;
    return idempotency.runCommand(options, { scope: merchantScope(principal, CREATE_ENDPOINT), request: { input } }, () => insertEndpoint({ principal, input }));
  }

  async function insertEndpoint(options: { principal: MerchantPrincipal; input: CreateEndpointCommand }): Promise<WebhookEndpoint> {
    assertPermitted(options.principal, 'manage');
    const { input } = options;
    const { merchant, mode } = options.principal;
    await checkUrl(mode, input.url);
    const existing = await store.webhooks.listEndpoints({ merchantId: merchant.id, mode });
    if (existing.length >= MAX_ENDPOINTS) throw new AppError('CONFLICT', `At most ${MAX_ENDPOINTS} webhook endpoints per mode`);
    const defaultEvents: WebhookEventType[] = ['order.status_changed', 'batch.created', ...(merchant.settings.webhookCourierLocation ? (['order.courier_location'] as const) : [])];
    const at = clock.now().toISOString();
    const endpoint: WebhookEndpoint = {
      id: ids.next('we'), merchantId: merchant.id, mode, url: input.url, description: input.description ?? null,
      events: input.events ?? defaultEvents, payloadShape: input.payloadShape ?? merchant.settings.webhookPayloadShape,
      signing: input.signing ?? 'symmetric',
      enabled: input.enabled ?? true, disabledReason: input.enabled === false ? 'disabled by the merchant' : null,
      failingSince: null, createdAt: at, updatedAt: at,
    };
    await store.webhooks.insertEndpoint(endpoint);
    return endpoint;
  }

  async function getEndpoint(options: { principal: MerchantPrincipal; id: string }): Promise<WebhookEndpoint> {
    const endpoint = await store.webhooks.findEndpoint({ id: options.id, merchantId: options.principal.merchant.id, mode: options.principal.mode });
    if (!endpoint) throw new AppError('NOT_FOUND', 'No such webhook endpoint');
    return endpoint;
  }

  async function updateEndpoint(options: { principal: MerchantPrincipal; id: string; input: UpdateEndpointCommand } & IdempotentCall): Promise<WebhookEndpoint> {
    const { principal, id, input } = options;
    return idempotency.runCommand(options, { scope: merchantScope(principal, UPDATE_ENDPOINT), request: { id, input } }, () => changeEndpoint({ principal, id, input }));
  }

  async function changeEndpoint(options: { principal: MerchantPrincipal; id: string; input: UpdateEndpointCommand }): Promise<WebhookEndpoint> {
    assertPermitted(options.principal, 'manage');
    const { input } = options;
    await getEndpoint(options);
    if (input.url) await checkUrl(options.principal.mode, input.url);
    const updated = await store.webhooks.updateEndpoint({
      id: options.id,
      updatedAt: clock.now().toISOString(),
      patch: {
        ...(input.url !== undefined && { url: input.url }),
        ...(input.description !== undefined && { description: input.description }),
        ...(input.events !== undefined && { events: input.events }),
        ...(input.payloadShape !== undefined && { payloadShape: input.payloadShape }),
        ...(input.signing !== undefined && { signing: input.signing }),
        ...(input.enabled !== undefined && {
          enabled: input.enabled,
          disabledReason: input.enabled ? null : 'disabled by the merchant',
          ...(input.enabled && { failingSince: null }),
        }),
      },
    });
    if (!updated) throw new AppError('NOT_FOUND', 'No such webhook endpoint');
    return updated;
  }

  async function deleteEndpoint(options: { principal: MerchantPrincipal; id: string }): Promise<void> {
    assertPermitted(options.principal, 'manage');
    const deleted = await store.webhooks.deleteEndpoint({ id: options.id, merchantId: options.principal.merchant.id, mode: options.principal.mode });
    if (!deleted) throw new AppError('NOT_FOUND', 'No such webhook endpoint');
  }

  async function listEndpoints(options: { principal: MerchantPrincipal }) {
    return store.webhooks.listEndpoints({ merchantId: options.principal.merchant.id, mode: options.principal.mode });
  }

  return { createEndpoint, getEndpoint, updateEndpoint, deleteEndpoint, listEndpoints, checkUrl };
}
