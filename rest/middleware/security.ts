import express, { type RequestHandler, type Response } from 'express';
import { AppError } from '../../src/domain/errors.js';
import { assertJsonDepth } from '../../src/domain/json-depth.js';

/** Headers for a JSON API that is never framed, sniffed or cached by shared caches. */
export function setSecurityHeaders(res: Response): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
}

/**
 * The access log and the security headers as one middleware: every request passes both, and each
 * router layer a request walks through costs about as much as the headers themselves.
 */
export function edgeOfEveryRequest(logRequest: RequestHandler): RequestHandler {
  return (req, res, next) => {
    setSecurityHeaders(res);
    logRequest(req, res, next);
  };
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** The common spellings, without a full media-type parse (req.is decides the rest). */
export const isPlainJsonType = (type: string | undefined) => type === 'application/json' || type?.toLowerCase().startsWith('application/json;') === true;

/** A request that carries a body must declare it as JSON. */
export function requireJsonBody(): RequestHandler {
  return (req, _res, next) => {
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (BODY_METHODS.has(req.method) && hasBody && !isPlainJsonType(req.headers['content-type']) && !req.is('application/json')) {
      return next(new AppError('UNSUPPORTED_MEDIA_TYPE', 'Request body must be application/json'));
    }
    next();
  };
}

/**
 * express.json(), then a body nested deeper than MAX_JSON_DEPTH is a 400 before any handler walks
 * it: one router layer instead of two.
 */
export function parseJsonBody(options: { limit: string }): RequestHandler {
  const parse = express.json({ limit: options.limit, type: 'application/json' });
  return (req, res, next) => {
    parse(req, res, (error?: unknown) => {
      if (error) return next(error);
      try {
        if (req.body !== null && typeof req.body === 'object') assertJsonDepth(req.body);
      } catch (tooDeep) {
        return next(tooDeep);
      }
      next();
    });
  };
}
