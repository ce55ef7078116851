import { OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { normalizeDocument } from './normalize.js';
import { registry } from './registry.js';
// One import per paths module: each registers its endpoints when loaded.
import './paths/docs.js';
import './paths/health.js';
import './paths/merchants.js';
import './paths/quotes.js';
import './paths/integrations.js';
import './paths/orders.js';
import './paths/couriers.js';
import './paths/tracking.js';
import './paths/webhooks.js';
import './paths/sandbox.js';
import './paths/events.js';
import './paths/notifications.js';
import './paths/cod.js';

export type OpenAPIDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

export const API_VERSION = '1.2.0';

/** Descriptions for tags; a tag used by an endpoint but missing here is still valid. */
const TAGS = [
  { name: 'Merchants', description: 'The calling merchant: profile and settings.' },
  { name: 'Quotes', description: 'Prices and estimated times for a delivery.' },
  { name: 'Orders', description: 'Orders: creation (idempotent), details by any identifier, history, cancellation, proof of delivery, consolidation.' },
  { name: 'Couriers', description: 'The courier app (courier token): duty, positions, moving an order through its states, delivery.' },
  { name: 'Tracking', description: 'Public delivery tracking by tracking number or order number: no credentials; drawn from the anonymous budget of the client address.' },
  { name: 'Webhooks', description: 'Signed event notifications (Standard Webhooks): endpoints, the delivery log and redelivery. See `webhooks` for what your server receives.' },
  { name: 'Notifications', description: 'Recipient notifications (SMS, WhatsApp, email) in Spanish with the tracking link: settings and the outbox (test keys: the sandbox outbox, never sent).' },
  { name: 'Cash on delivery', description: 'Cash collected at the door (cod_amount on orders), what couriers hold and what is paid out to you: the report.' },
  { name: 'Sandbox', description: 'Test-key helpers that drive sandbox orders.' },
  { name: 'Integrations', description: 'Rate endpoints called by shop plugins, storefront platforms and ERPs; each needs the integration approved.' },
  { name: 'Health', description: 'Liveness and dependency checks.' },
  { name: 'Documentation', description: 'This document and its browsable reference.' },
];

const DESCRIPTION = `Urban express delivery: quotes, orders, dispatch, live tracking, proof of delivery and signed webhooks.

**Authentication.** Send your API key as \`Authorization: Bearer <key>\` or \`X-API-Key: <key>\`.
\`ak_live_…\` keys act in production, \`ak_test_…\` keys in the sandbox; live and test data never mix.

**Format.** JSON in snake_case, UTF-8, bodies up to 100 kB. Successful responses carry \`success: true\`;
errors are \`{ "success": false, "error": { "code", "message", "fields"? } }\` with a code from \`ErrorCode\`.

**Rate limits.** Per API key, per courier token, and for public endpoints one anonymous budget per client
address (an IPv4 address or an IPv6 /64) shared with the tracking page, anonymous GraphQL and the live sockets;
see the \`RateLimit-*\` headers. Over the limit: 429 \`RATE_LIMITED\` with \`Retry-After\`, whatever the resource
(a known and an unknown tracking reference get the same answer). Behind a proxy the client address is taken from
\`X-Forwarded-For\` only when the operator configured \`TRUST_PROXY\`.`;

let cached: { document: OpenAPIDocument; json: string } | undefined;

function build() {
  const document = normalizeDocument(
    new OpenApiGeneratorV31(registry.definitions).generateDocument({
      openapi: '3.1.0',
      info: { title: 'Express Delivery API', version: API_VERSION, description: DESCRIPTION },
      servers: [{ url: '/api/v1' }],
      tags: TAGS,
    }),
  );
  return { document, json: JSON.stringify(document) };
}

/** The OpenAPI 3.1 document for /api/v1, generated once from the registered zod schemas. */
export function buildOpenApiDocument(): OpenAPIDocument {
  return (cached ??= build()).document;
}

/** The document serialised once, for GET /api/v1/openapi.json. */
export function openApiJson(): string {
  return (cached ??= build()).json;
}
