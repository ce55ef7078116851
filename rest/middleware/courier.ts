import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import type { CourierPrincipal } from '../../src/domain/auth.js';
import { AppError } from '../../src/domain/errors.js';
import { setRateLimitHeaders } from './rate-limit.js';

/** Couriers authenticate with their own token (`Authorization: Bearer ct_…`) and draw from their own budget. */
export function requireCourier(edge: Edge): RequestHandler {
  const { door } = edge;
  return async (req: Request, res: Response, next: NextFunction) => {
    const { caller, decision } = await door.frontDoor.enter(door.credentialsOf(req), 'courier');
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
