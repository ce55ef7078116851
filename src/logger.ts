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
];

/** Logs go to stdout by default (fd 1); the admin CLI passes fd 2 to keep stdout for its JSON. */
export function createLogger(options: { level: string; destination?: DestinationStream | number }): Logger {
  const { destination = 1 } = options;
  const stream = typeof destination === 'number' ? pino.destination({ dest: destination, sync: false }) : destination;
  return pino(
    { level: options.level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { service: 'express-delivery' } },
    stream,
  );
}
