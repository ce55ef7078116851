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
  // The recipient's ID (issue #30): only its last 4 characters are kept, so none of it is logged.
  ...['documentNumber', 'document_number', 'dateOfBirth', 'date_of_birth'].flatMap((key) => [key, `*.${key}`, `*.*.${key}`, `*.*.*.${key}`]),
];

/** Lines kept while the log cannot be written (its disk is full): past this, new lines are dropped. */
export const LOG_BUFFER_LIMIT_BYTES = 8 * 1024 * 1024;

/** Logs go to stdout by default (fd 1); the admin CLI passes fd 2 to keep stdout for its JSON. */
export function createLogger(options: { level: string; destination?: DestinationStream | number }): Logger {
  const { destination = 1 } = options;
  // Lines are batched (4 kB) into one write and flushed at least every 250 ms: a write per request
  // was measurable CPU (bench/quote). On a crash at most that last batch is lost.
  const stream = typeof destination === 'number'
    ? pino.destination({ dest: destination, sync: false, minLength: 4096, maxLength: LOG_BUFFER_LIMIT_BYTES })
    : destination;
  if (typeof destination === 'number') setInterval(() => (stream as ReturnType<typeof pino.destination>).flush(), 250).unref();
  const logger = pino(
    { level: options.level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { service: 'express-delivery' } },
    stream,
  );
  if (typeof destination === 'number') surviveWriteErrors(stream as ReturnType<typeof pino.destination>, logger);
  return logger;
}

/**
 * A log that cannot be written (ENOSPC, EFBIG, EIO) must not take the process down: an 'error'
 * event without a listener would. The unwritten lines stay buffered and are written with the next
 * ones (up to LOG_BUFFER_LIMIT_BYTES; lines past it are dropped and counted); once the log is
 * written again, one line says what happened.
 */
function surviveWriteErrors(stream: ReturnType<typeof pino.destination>, logger: Logger): void {
  let failure: { code: string; droppedLines: number } | null = null;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    failure ??= { code: error.code ?? error.message, droppedLines: 0 };
  });
  stream.on('drop', () => {
    if (failure) failure.droppedLines++;
  });
  stream.on('write', () => {
    if (!failure) return;
    const { code, droppedLines } = failure;
    failure = null;
    logger.warn({ err: code, droppedLines }, 'the log could not be written for a while (its disk full or failing)');
  });
}
