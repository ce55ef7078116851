import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger };

/** Paths that may carry credentials or customer data; pino replaces them before writing. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-shopify-hmac-sha256"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.apiKey',
  '*.apiSecret',
  '*.token',
  '*.secret',
  '*.password',
  // Delivery PINs (issue #17): never in the logs, whatever spelling or depth a body or record has.
  'pin',
  'deliveryPin',
  'delivery_pin',
  '*.pin',
  '*.deliveryPin',
  '*.delivery_pin',
  '*.*.pin',
  '*.*.deliveryPin',
  '*.*.delivery_pin',
];

/** Logs go to stdout by default (fd 1); the admin CLI passes fd 2 to keep stdout for its JSON. */
export function createLogger(options: { level: string; destination?: DestinationStream | number }): Logger {
  const { destination = 1 } = options;
  // Lines are batched (4 kB) into one write and flushed at least every 250 ms: a write per request
  // was measurable CPU (bench/quote). On a crash at most that last batch is lost.
  const stream = typeof destination === 'number' ? pino.destination({ dest: destination, sync: false, minLength: 4096 }) : destination;
  if (typeof destination === 'number') setInterval(() => (stream as ReturnType<typeof pino.destination>).flush(), 250).unref();
  return pino(
    { level: options.level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { service: 'express-delivery' } },
    stream,
  );
}
