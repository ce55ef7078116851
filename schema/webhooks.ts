import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../src/domain/types.js';
import type { PublishedKey } from '../src/domain/webhooks/signing-keys.js';
import { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES, WEBHOOK_SIGNINGS } from '../src/domain/types.js';
import { listDeliveriesQuerySchema, redeliverFailedCommandSchema } from '../src/domain/webhooks/delivery-log.js';
import { createEndpointCommandSchema, updateEndpointCommandSchema } from '../src/domain/webhooks/endpoints.js';
import { builder } from './builder.js';
import { commandOf } from './commands.js';
import { IDEMPOTENCY_KEY_DESCRIPTION } from './idempotency.js';
import { merchantOf } from './merchants.js';

export const WebhookEventEnum = builder.enumType('WebhookEventType', {
  values: Object.fromEntries(WEBHOOK_EVENT_TYPES.map((v) => [v.replace('.', '_').toUpperCase(), { value: v }])) as Record<string, { value: (typeof WEBHOOK_EVENT_TYPES)[number] }>,
});
const ShapeEnum = builder.enumType('WebhookShape', { values: ['event', 'flat'] as const });
const SigningEnum = builder.enumType('WebhookSigning', {
  values: WEBHOOK_SIGNINGS,
  description: '`symmetric`: `v1,` HMAC-SHA256 with the API secret (default); `asymmetric`: `v1a,` Ed25519, verified with `webhookPublicKeys`.',
});
const DeliveryStatusEnum = builder.enumType('WebhookDeliveryStatus', { values: WEBHOOK_DELIVERY_STATUSES });

const EndpointRef = builder.objectRef<WebhookEndpoint>('WebhookEndpoint').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    url: t.exposeString('url'),
    description: t.exposeString('description', { nullable: true }),
    events: t.field({ type: [WebhookEventEnum], resolve: (e) => e.events }),
    payloadShape: t.field({ type: ShapeEnum, resolve: (e) => e.payloadShape }),
    signing: t.field({ type: SigningEnum, resolve: (e) => e.signing }),
    enabled: t.exposeBoolean('enabled'),
    disabledReason: t.exposeString('disabledReason', { nullable: true }),
    failingSince: t.field({ type: 'DateTime', nullable: true, resolve: (e) => e.failingSince }),
    createdAt: t.field({ type: 'DateTime', resolve: (e) => e.createdAt }),
  }),
});

const AttemptRef = builder.objectRef<WebhookAttempt>('WebhookAttempt').implement({
  fields: (t) => ({
    attempt: t.exposeInt('attempt'),
    at: t.field({ type: 'DateTime', resolve: (a) => a.at }),
    statusCode: t.exposeInt('statusCode', { nullable: true }),
    latencyMs: t.exposeInt('latencyMs'),
    error: t.exposeString('error', { nullable: true }),
  }),
});

export const DeliveryRef = builder.objectRef<WebhookDelivery>('WebhookDelivery').implement({
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The webhook-id header value' }),
    endpointId: t.exposeID('endpointId'),
    event: t.field({ type: WebhookEventEnum, resolve: (d) => d.eventType }),
    orderId: t.exposeID('orderId', { nullable: true }),
    sequence: t.exposeInt('sequence', { nullable: true }),
    status: t.field({ type: DeliveryStatusEnum, resolve: (d) => d.status }),
    attempts: t.exposeInt('attempts'),
    nextAttemptAt: t.field({ type: 'DateTime', nullable: true, resolve: (d) => (d.status === 'pending' ? d.nextAttemptAt : null) }),
    lastStatusCode: t.exposeInt('lastStatusCode', { nullable: true }),
    lastError: t.exposeString('lastError', { nullable: true }),
    lastLatencyMs: t.exposeInt('lastLatencyMs', { nullable: true }),
    payload: t.exposeString('body'),
    createdAt: t.field({ type: 'DateTime', resolve: (d) => d.createdAt }),
    deliveredAt: t.field({ type: 'DateTime', nullable: true, resolve: (d) => d.deliveredAt }),
    attemptLog: t.field({ type: [AttemptRef], resolve: (delivery, _a, ctx) => ctx.services.webhookDeliveries.attemptsOf({ delivery }) }),
  }),
});

/**
 * The result of a bulk redelivery as the `Int` the field has always returned (GraphQL serialises
 * an object through valueOf) that also carries what the success type's added fields read.
 */
class RequeuedCount {
  readonly requeued: number;
  readonly more: boolean;
  readonly limit: number;
  constructor(result: { requeued: number; more: boolean; limit: number }) {
    ({ requeued: this.requeued, more: this.more, limit: this.limit } = result);
  }
  valueOf(): number {
    return this.requeued;
  }
}

const EndpointInput = builder.inputType('WebhookEndpointInput', {
  fields: (t) => ({
    url: t.string(),
    description: t.string(),
    events: t.field({ type: [WebhookEventEnum] }),
    payloadShape: t.field({ type: ShapeEnum }),
    signing: t.field({ type: SigningEnum }),
    enabled: t.boolean(),
  }),
});

const PublicKeyRef = builder.objectRef<PublishedKey>('WebhookPublicKey').implement({
  description: 'An Ed25519 public key that verifies `v1a` webhook signatures (endpoints with `signing: asymmetric`).',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The key id (that of the signing secret it rotates with).' }),
    algorithm: t.exposeString('algorithm'),
    publicKey: t.exposeString('publicKey', { description: 'The raw 32-byte key, base64.' }),
    publicKeyPem: t.exposeString('publicKeyPem', { description: 'The same key as SPKI PEM.' }),
    createdAt: t.field({ type: 'DateTime', resolve: (k) => k.createdAt }),
    expiresAt: t.field({ type: 'DateTime', nullable: true, resolve: (k) => k.expiresAt, description: 'Set on the previous key during a rotation overlap.' }),
  }),
});

builder.queryFields((t) => ({
  webhookPublicKeys: t.field({
    type: [PublicKeyRef],
    authScopes: { merchant: true },
    description: 'The public keys in force, newest first (as GET /webhooks/public-keys): current, and previous during a rotation.',
    resolve: (_r, _a, ctx) => ctx.services.signingKeys.publicKeys({ principal: merchantOf(ctx, 'settings') }),
  }),
  webhookEndpoints: t.field({
    type: [EndpointRef],
    authScopes: { merchant: true },
    resolve: (_r, _a, ctx) => ctx.services.webhookEndpoints.listEndpoints({ principal: merchantOf(ctx, 'settings') }),
  }),
  webhookDeliveries: t.field({
    type: [DeliveryRef],
    authScopes: { merchant: true },
    errors: {},
    description: 'The delivery log, newest first (as GET /webhooks/deliveries); `after` is the last id of the previous page.',
    args: {
      endpointId: t.arg.id(), status: t.arg({ type: DeliveryStatusEnum }), createdFrom: t.arg({ type: 'DateTime' }), createdTo: t.arg({ type: 'DateTime' }),
      first: t.arg.int(), after: t.arg.id(),
    },
    resolve: async (_r, { first, ...args }, ctx) =>
      (
        await ctx.services.webhookDeliveries.listDeliveries({
          principal: merchantOf(ctx, 'settings'),
          input: commandOf(listDeliveriesQuerySchema, Object.assign({}, args, { limit: first })),
        })
      ).deliveries,
  }),
  webhookDelivery: t.field({
    type: DeliveryRef,
    authScopes: { merchant: true },
    errors: {},
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, args, ctx) =>
      (await ctx.services.webhookDeliveries.getDelivery({ principal: merchantOf(ctx, 'settings'), id: String(args.id) })).delivery,
  }),
}));

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    type: EndpointRef,
    authScopes: { merchant: true },
    errors: {},
    args: { input: t.arg({ type: EndpointInput, required: true }), idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY_DESCRIPTION }) },
    resolve: (_r, { input: given, idempotencyKey }, ctx) => {
      const [principal, input] = [merchantOf(ctx, 'settings'), commandOf(createEndpointCommandSchema, given)];
      return ctx.services.webhookEndpoints.createEndpoint({ principal, input, idempotencyKey: idempotencyKey ?? undefined });
    },
  }),
  updateWebhookEndpoint: t.field({
    type: EndpointRef,
    authScopes: { merchant: true },
    errors: {},
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: EndpointInput, required: true }), idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY_DESCRIPTION }) },
    resolve: (_r, args, ctx) => {
      const [principal, id, input] = [merchantOf(ctx, 'settings'), String(args.id), commandOf(updateEndpointCommandSchema, args.input)];
      return ctx.services.webhookEndpoints.updateEndpoint({ principal, id, input, idempotencyKey: args.idempotencyKey ?? undefined });
    },
  }),
  deleteWebhookEndpoint: t.field({
    type: 'Boolean',
    authScopes: { merchant: true },
    errors: {},
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, args, ctx) => {
      await ctx.services.webhookEndpoints.deleteEndpoint({ principal: merchantOf(ctx, 'settings'), id: String(args.id) });
      return true;
    },
  }),
  redeliverWebhook: t.field({
    type: DeliveryRef,
    authScopes: { merchant: true },
    errors: {},
    args: { id: t.arg.id({ required: true }), idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY_DESCRIPTION }) },
    resolve: (_r, args, ctx) => {
      const [principal, id] = [merchantOf(ctx, 'settings'), String(args.id)];
      return ctx.services.webhookDeliveries.redeliver({ principal, id, idempotencyKey: args.idempotencyKey ?? undefined });
    },
  }),
  redeliverFailedWebhooks: t.field({
    type: 'Int',
    description: 'Requeues failed deliveries of the range, at most 1,000 per call (newest first) and 10 calls per hour per merchant and mode (then RATE_LIMITED).',
    authScopes: { merchant: true },
    errors: {
      // `data` stays the count (Int); `more` and `limit` were added beside it.
      result: {
        fields: (t) => ({
          more: t.boolean({ description: 'More failed deliveries remain in the range: call again.', resolve: (r) => (r as unknown as RequeuedCount).more }),
          limit: t.int({ description: 'The most one call requeues.', resolve: (r) => (r as unknown as RequeuedCount).limit }),
        }),
      },
    },
    args: { createdFrom: t.arg({ type: 'DateTime', required: true }), createdTo: t.arg({ type: 'DateTime', required: true }), idempotencyKey: t.arg.string({ description: IDEMPOTENCY_KEY_DESCRIPTION }) },
    resolve: async (_r, { idempotencyKey, ...args }, ctx) => {
      const [principal, input] = [merchantOf(ctx, 'settings'), commandOf(redeliverFailedCommandSchema, args)];
      const result = await ctx.services.webhookDeliveries.redeliverFailed({ principal, input, idempotencyKey: idempotencyKey ?? undefined });
      return new RequeuedCount(result) as unknown as number;
    },
  }),
}));
