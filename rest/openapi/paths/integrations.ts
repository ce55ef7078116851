import { erpRateSchema } from '../../../src/domain/integrations/erp.js';
import { pluginQuoteSchema } from '../../../src/domain/integrations/plugin.js';
import { carrierServiceRequestSchema } from '../../../src/domain/integrations/storefront.js';
import { storefrontQuerySchema } from '../../routes/storefront.js';
import { registerEndpoint } from '../registry.js';
import { carrierServiceResponseSchema, erpRateFailureSchema, erpRateResponseSchema, pluginRatesResponseSchema } from '../responses.js';

const PLACEMENT_ERRORS = ['GEOCODING_FAILED', 'OUTSIDE_SERVICE_AREA', 'WEIGHT_EXCEEDS_CAPACITY'] as const;

registerEndpoint({
  method: 'post',
  path: '/plugin/shipping-quote',
  operationId: 'quotePluginShipping',
  summary: 'E-commerce plugin rates (WooCommerce add_rate arguments)',
  description: `Called by the shop plugin at checkout. \`contents\` is the spec's array of \`{name, quantity}\`, or WooCommerce's own
package contents (an object keyed by cart-item hash); an item \`weight\` (kg) is summed when given, else \`total_weight\`.
The pickup is the merchant profile address. Every authenticated call is counted for moderation (site and plugin version
from \`X-Site-Url\`, \`X-Plugin-Version\` or the User-Agent), also when the integration is not approved yet.`,
  tags: ['Integrations'],
  auth: 'apiKey',
  integration: 'plugin',
  body: pluginQuoteSchema,
  bodyExample: {
    destination: { address: 'Av. Providencia 1234', city: 'Providencia', postal_code: '7500000' },
    contents: [{ name: 'Café molido 500 g', quantity: 2 }],
    prep_time_mins: 10,
  },
  responses: { 200: { description: 'Rates for add_rate()', schema: pluginRatesResponseSchema } },
  errors: PLACEMENT_ERRORS,
});

registerEndpoint({
  method: 'post',
  path: '/storefront/carrier-service',
  operationId: 'quoteStorefrontCarrierService',
  summary: 'Storefront carrier-service rate callback (Shopify protocol)',
  description: `The Shopify CarrierService callback: request and response exactly as Shopify sends and expects them.
Authenticated by an API key, or by Shopify's signature: \`X-Shopify-Hmac-Sha256\` (base64 HMAC-SHA256 of the raw body with
the storefront app's secret stored as the merchant setting \`storefront_shared_secret\`, or with the merchant's API secret) and
\`X-Shopify-Shop-Domain\` equal to the merchant's \`storefront_domain\` (Shopify sends no API key); with the signature,
\`?mode=test\` selects the sandbox. An address or parcel we cannot serve answers 200 \`{"rates": []}\` (Shopify's "cannot ship").`,
  tags: ['Integrations'],
  auth: 'apiKeyOrStorefrontHmac',
  integration: 'storefront',
  body: carrierServiceRequestSchema,
  bodyExample: {
    rate: {
      origin: { country: 'CL', city: 'Providencia', address1: 'Av. Providencia 1234' },
      destination: { country: 'CL', city: 'Las Condes', province: 'Región Metropolitana', address1: 'Av. Apoquindo 3000' },
      items: [{ name: 'Polera', quantity: 1, grams: 300, requires_shipping: true }],
      currency: 'CLP',
      locale: 'es-CL',
    },
  },
  query: storefrontQuerySchema,
  responses: { 200: { description: 'Rates, or an empty list when we cannot ship there', schema: carrierServiceResponseSchema } },
});

registerEndpoint({
  method: 'post',
  path: '/erp/rate-shipment',
  operationId: 'rateErpShipment',
  summary: 'ERP rate callback (Odoo rate_shipment contract)',
  description: `Rates a delivery from the merchant profile address to \`partner_address\`. Failures keep Odoo's contract
(\`success: false\`, \`price: 0\`, \`error_message\`) beside the usual \`error\` object, with the HTTP status of the error code.`,
  tags: ['Integrations'],
  auth: 'apiKey',
  integration: 'erp',
  body: erpRateSchema,
  bodyExample: { partner_address: 'Av. Apoquindo 3000, Las Condes', weight_kg: 4.2, prep_time_mins: 20 },
  responses: { 200: { description: 'The rate', schema: erpRateResponseSchema } },
  errors: PLACEMENT_ERRORS,
  errorSchema: erpRateFailureSchema,
});
