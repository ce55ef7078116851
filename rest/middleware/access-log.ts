import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '../../src/logger.js';
import type { Metrics } from '../../src/metrics.js';

const REQUEST_ID = /^[\w.-]{1,64}$/;

declare module 'http' {
  interface IncomingMessage {
    /** The request id: the caller's X-Request-Id when it is a safe token, else a new UUID. */
    id?: string;
  }
}

/**
 * One log line and one metrics observation per request, written when the response finishes.
 * Hand-written instead of pino-http: the same line for about half the CPU (measured in bench/quote).
 * Only method, path, status and duration are logged — never headers (credentials) or bodies.
 */
export function accessLog(logger: Logger, metrics: Metrics): RequestHandler {
  // These lines are built here from fixed fields, with nothing to redact: without the logger's
  // redaction pass a line costs half (3 instead of 6 µs).
  const lines = logger.child({}, { redact: [] });
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    req.id = id;
    res.setHeader('X-Request-Id', id);
    const started = performance.now();
    // The response object ends with the request: a plain listener, without once()'s wrapper.
    res.on('finish', () => {
      const ms = performance.now() - started;
      const status = res.statusCode;
      const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : req.url?.startsWith('/graphql') ? '/graphql' : 'unmatched';
      metrics.httpDuration.observe({ method: req.method, route, status: String(status) }, ms / 1000);
      if (status === 429) metrics.rateLimited.inc();
      const line = { reqId: id, method: req.method, url: (req.originalUrl ?? req.url ?? '').split('?')[0], status, ms: Math.round(ms * 10) / 10 };
      // 503 is the documented degraded answer (store unreachable), not a fault of ours.
      if (status >= 500 && status !== 503) lines.error(line, 'request failed');
      else if (status === 503) lines.warn(line, 'request refused: service unavailable');
      else lines.info(line, 'request');
    });
    next();
  };
}
