import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { hashToken, safeEqual } from './domain/credentials.js';

export type Metrics = ReturnType<typeof createMetrics>;

/** One registry per app instance, so several apps can run in one process (tests). */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'rate_limited_requests_total',
    help: 'Requests refused with 429',
    registers: [registry],
  });
  // Compilations the GraphQL cache paid for: a steady climb means documents churn through the cache
  // (too many distinct queries, or a caller cycling them), each costing a graphql-jit compile.
  const graphqlCompilations = new Counter({
    name: 'graphql_query_compilations_total',
    help: 'GraphQL documents compiled by graphql-jit (schema/compiled-queries.ts)',
    registers: [registry],
  });
  // Live SMS/WhatsApp/email refused by the sending budget (issue #39 item 3): a climb in
  // country_not_allowed or the caps is someone pumping messages through a merchant's key.
  const notificationsBlocked = new Counter({
    name: 'notifications_blocked_total',
    help: 'Live recipient notifications refused by the sending budget, by reason and channel',
    labelNames: ['reason', 'channel'] as const,
    registers: [registry],
  });
  return { registry, httpDuration, rateLimited, graphqlCompilations, notificationsBlocked };
}

export type MetricsAccess = 'allowed' | 'unauthorized' | 'hidden';

/**
 * Who may read /metrics (versions, heap, per-route volumes): with METRICS_TOKEN configured, only
 * `Authorization: Bearer <token>` (compared as SHA-256 digests, in constant time); without one,
 * everyone in development and nobody in production, where the path does not exist (404).
 */
export function metricsAccess(options: { token: string | undefined; production: boolean }): (authorization: string | undefined) => MetricsAccess {
  const { token, production } = options;
  if (!token) return () => (production ? 'hidden' : 'allowed');
  const expected = hashToken(token);
  return (authorization) => {
    const given = authorization?.startsWith('Bearer ') ? authorization.slice(7).trim() : '';
    return given && safeEqual(hashToken(given), expected) ? 'allowed' : 'unauthorized';
  };
}
