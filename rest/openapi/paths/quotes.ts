import { registerEndpoint } from '../registry.js';
import { quoteRequestForms } from '../request-forms.js';
import { quoteResponseSchema } from '../responses.js';

registerEndpoint({
  method: 'post',
  path: '/shipping/quote',
  operationId: 'quoteShipping',
  summary: 'Quote a delivery (price, vehicle, ETAs, rates)',
  description: `One of the two documented request forms (\`oneOf\`):

- **Form A** (\`QuoteRequestFormA\`): \`origin\` and \`destination\` as Address objects, \`total_weight_kg\`, \`package_type\`.
- **Form B** (\`QuoteRequestFormB\`): \`destination\` as a full address string or \`{lat, lng}\`; \`origin\` optional (the merchant profile
  address is used), \`total_weight\`.

One weight field: \`total_weight_kg\` (Form A) or \`total_weight\` (Form B). The server still accepts the two forms' fields mixed,
as it always has, and both weights when they agree to the gram (equal once rounded to 0.001 kg); two weights that disagree are
400 VALIDATION_ERROR naming both.

Coordinates skip geocoding; text is placed in the Región Metropolitana (comuna names, accent- and case-insensitive).
Prep time resolves request → merchant default → 0. The vehicle is the smallest class that carries the weight.
The response carries the fields of both response forms.

Every quote is kept for 15 minutes: its \`quote_id\` in POST /orders (with \`rate_id\` \`express\` or \`batched\`) charges exactly the
quoted cost, for the same delivery (each end within 100 m, a weight in the same vehicle class). \`pickup_after\` (up to 7 days
ahead) and \`deliver_before\` quote a scheduled delivery: the estimates follow the window; an unreachable one is 422
DELIVERY_WINDOW_UNREACHABLE.`,
  tags: ['Quotes'],
  auth: 'apiKey',
  body: quoteRequestForms,
  bodyExample: {
    origin: { address: 'Av. Providencia 1234', number: '501' },
    destination: { address: 'Av. Apoquindo 3000, Las Condes' },
    total_weight_kg: 2.5,
    prep_time_mins: 15,
  },
  responses: { 200: { description: 'The quote', schema: quoteResponseSchema } },
  errors: ['GEOCODING_FAILED', 'OUTSIDE_SERVICE_AREA', 'WEIGHT_EXCEEDS_CAPACITY', 'PARCEL_EXCEEDS_CAPACITY', 'DELIVERY_WINDOW_UNREACHABLE'],
});
