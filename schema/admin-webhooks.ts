import type { WebhookEndpoint } from '../src/domain/types.js';
import { adminOf, adminScopes } from './admin-access.js';
import { builder } from './builder.js';
import { ModeEnum } from './merchants.js';

/** A webhook endpoint in trouble, as operators see it: no secret, the URL as the merchant stored it. */
export const FailingEndpointRef = builder.objectRef<{ endpoint: WebhookEndpoint; merchantName: string | null }>('AdminFailingWebhookEndpoint').implement({
  fields: (t) => ({
    id: t.id({ resolve: (r) => r.endpoint.id }),
    merchantId: t.id({ resolve: (r) => r.endpoint.merchantId }),
    merchantName: t.exposeString('merchantName', { nullable: true }),
    mode: t.field({ type: ModeEnum, resolve: (r) => r.endpoint.mode }),
    url: t.string({ resolve: (r) => r.endpoint.url }),
    enabled: t.boolean({ resolve: (r) => r.endpoint.enabled }),
    failingSince: t.field({ type: 'DateTime', nullable: true, description: 'When the current run of failed attempts began.', resolve: (r) => r.endpoint.failingSince }),
    disabledReason: t.string({ nullable: true, resolve: (r) => r.endpoint.disabledReason }),
  }),
});

builder.queryFields((t) => ({
  adminFailingWebhookEndpoints: t.field({
    type: [FailingEndpointRef],
    description: 'Endpoints failing (failingSince set) or disabled with a reason, by merchant; one merchant’s when merchantId is given. At most 200.',
    authScopes: adminScopes('adminFailingWebhookEndpoints'),
    args: { merchantId: t.arg.id(), limit: t.arg.int() },
    resolve: (_r, args, ctx) =>
      adminOf(ctx).listFailingWebhookEndpoints({
        input: { ...(args.merchantId != null && { merchantId: String(args.merchantId) }), ...(args.limit != null && { limit: args.limit }) },
      }),
  }),
}));
