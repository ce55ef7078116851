import { registerEndpoint } from '../registry.js';
import { healthSchema } from '../responses.js';

registerEndpoint({
  method: 'get',
  path: '/health',
  operationId: 'getHealth',
  summary: 'Service health',
  description: 'Public. `degraded` when an optional dependency is down, or the store answers reads but cannot take writes now (`reasons` says why); 503 when a required one is down.',
  tags: ['Health'],
  auth: 'public',
  responses: {
    200: { description: 'Up (`ok` or `degraded`)', schema: healthSchema },
    503: { description: 'Down: a required dependency does not answer', schema: healthSchema },
  },
});
