import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import type { CourierPrincipal } from '../../src/domain/auth.js';
import { AppError } from '../../src/domain/errors.js';
import { COURIER_CSRF_HEADER } from '../../src/edge/session-cookie.js';
import { setRateLimitHeaders } from './rate-limit.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Couriers authenticate with their own token (`Authorization: Bearer ct_…`), or the courier app's
 * session cookie (issue #27) — then a request that changes something must carry `X-Courier-CSRF`
 * (a cross-site form or link cannot set it) — and draw from their own budget.
 */
export function requireCourier(edge: Edge): RequestHandler {
  const { door } = edge;
  return async (req: Request, res: Response, next: NextFunction) => {
    const credentials = door.courierCredentialsOf(req);
    if (!credentials.token && credentials.courierSession && !SAFE_METHODS.has(req.method) && !door.hasCourierCsrfHeader(req)) {
      throw new AppError('CSRF_REQUIRED', `A request signed in with the courier session cookie must send the ${COURIER_CSRF_HEADER} header`);
    }
    const { caller, decision } = await door.frontDoor.enter(credentials, 'courier');
    if (caller.kind !== 'courier') throw new AppError('INVALID_COURIER_TOKEN', 'Courier token missing or invalid');
    res.locals.courier = caller.courier;
    setRateLimitHeaders(res, decision);
    next();
  };
}

export function courierOf(res: Response): CourierPrincipal {
  const principal = res.locals.courier as CourierPrincipal | undefined;
  if (!principal) throw new AppError('INTERNAL_ERROR', 'route is missing its courier auth middleware');
  return principal;
}
