import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, isAppError, presentError } from '../../src/domain/errors.js';
import { RateLimitedError } from '../../src/domain/front-door.js';
import { rateLimitHeaders } from '../../src/edge/door.js';
import type { Logger } from '../../src/logger.js';
import { isUnavailable } from '../../src/ports/unavailable.js';
import { inWireTerms } from '../../src/edge/wire-errors.js';
import { sendJson } from '../respond.js';
import { IDEMPOTENCY_FIELD_NAMES } from '../idempotency.js';

interface BodyParserError {
  type?: string;
  status?: number;
}

/** Maps body-parser failures (malformed, too large, bad charset) to the closed error list. */
function fromBodyParser(error: BodyParserError): AppError | null {
  switch (error.type) {
    case 'entity.parse.failed':
      return new AppError('MALFORMED_JSON', 'Request body is not valid JSON');
    case 'entity.too.large':
      return new AppError('PAYLOAD_TOO_LARGE', 'Request body exceeds the 100 kB limit');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Request body must be UTF-8 JSON');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new AppError('VALIDATION_ERROR', 'Request body could not be read');
    default:
      return null;
  }
}

/**
 * Other client errors raised below our code: a path parameter that is not valid percent-encoded
 * UTF-8 (the router's URIError), a body whose Content-Encoding does not decode (zlib). They carry
 * a 4xx status; they are the client's fault, never a 500.
 */
function fromClientError(error: unknown): AppError | null {
  if (error instanceof URIError) return new AppError('VALIDATION_ERROR', 'Request path is not valid percent-encoded UTF-8');
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status !== 'number' || status < 400 || status > 499) return null;
  if (status === 413) return new AppError('PAYLOAD_TOO_LARGE', 'Request body exceeds the 100 kB limit');
  if (status === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Request body must be UTF-8 JSON');
  return new AppError('VALIDATION_ERROR', 'Request could not be read');
}

export function notFoundHandler(): RequestHandler {
  return (req, _res, next) => next(new AppError('NOT_FOUND', `No route for ${req.method} ${req.path}`));
}

/**
 * Answers an error in the closed error shape (the code's status, RateLimit-* and Retry-After where
 * they apply). Express's error handler and the fast path (rest/fast-path.ts) both call this.
 */
export function sendError(logger: Logger, error: unknown, req: IncomingMessage, res: ServerResponse): void {
  let appError = isAppError(error) ? error : (fromBodyParser(error as BodyParserError) ?? fromClientError(error));
  let retryAfter: unknown;
  if (!appError && isUnavailable(error)) {
    logger.warn({ err: (error as Error).message, reqId: req.id }, 'store unavailable');
    retryAfter = 5;
    appError = new AppError('SERVICE_UNAVAILABLE', 'A backing service is unavailable; retry shortly');
  }
  if (!appError) {
    // 5xx never shows internals: the detail goes to the log with the request id only.
    logger.error({ err: error, reqId: req.id }, 'unhandled error');
    appError = new AppError('INTERNAL_ERROR', 'Internal error; the request id identifies it in our logs');
  }
  if (res.headersSent) return void res.end();
  // A domain budget (e.g. bulk redelivery per hour) says when to come back.
  if (appError.code === 'RATE_LIMITED' || appError.code === 'PROOF_BUDGET_EXCEEDED') retryAfter = appError.details?.retry_after_seconds;
  if (typeof retryAfter === 'number') res.setHeader('Retry-After', String(retryAfter));
  if (appError instanceof RateLimitedError) {
    const headers = rateLimitHeaders(appError.decision);
    for (const name in headers) res.setHeader(name, headers[name]!);
  }
  // Field names and the keys named in messages in the wire's terms (snake_case; the idempotency key is a header), whatever the route.
  sendJson(res, appError.status, JSON.stringify(presentError(inWireTerms(appError, IDEMPOTENCY_FIELD_NAMES))));
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => sendError(logger, error, req, res);
}
