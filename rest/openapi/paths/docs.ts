import { z } from 'zod';
import { registerEndpoint } from '../registry.js';

registerEndpoint({
  method: 'get',
  path: '/openapi.json',
  operationId: 'getOpenApiDocument',
  summary: 'This OpenAPI 3.1 document',
  tags: ['Documentation'],
  auth: 'public',
  responses: {
    200: { description: 'The OpenAPI 3.1 document', schema: z.record(z.string(), z.unknown()).openapi({ description: 'OpenAPI 3.1 document' }) },
  },
});

registerEndpoint({
  method: 'get',
  path: '/docs',
  operationId: 'getApiReferencePage',
  summary: 'Browsable API reference (HTML)',
  tags: ['Documentation'],
  auth: 'public',
  responses: { 200: { description: 'The reference page', contentType: 'text/html', schema: z.string() } },
});
