import type { RequestHandler } from 'express';
import { AppError } from '../../src/domain/errors.js';
import { assertJsonDepth } from '../../src/domain/json-depth.js';

/** Headers for a JSON API that is never framed, sniffed or cached by shared caches. */
export function securityHeaders(): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    next();
  };
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** The common spellings, without a full media-type parse (req.is decides the rest). */
const isJson = (type: string | undefined) => type === 'application/json' || type?.toLowerCase().startsWith('application/json;') === true;

/** A request that carries a body must declare it as JSON. */
export function requireJsonBody(): RequestHandler {
  return (req, _res, next) => {
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (BODY_METHODS.has(req.method) && hasBody && !isJson(req.headers['content-type']) && !req.is('application/json')) {
      return next(new AppError('UNSUPPORTED_MEDIA_TYPE', 'Request body must be application/json'));
    }
    next();
  };
}

/** After the JSON parser: a body nested deeper than MAX_JSON_DEPTH is a 400 before any handler walks it. */
export function limitJsonDepth(): RequestHandler {
  return (req, _res, next) => {
    if (req.body !== null && typeof req.body === 'object') assertJsonDepth(req.body);
    next();
  };
}
