import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Container } from '../../src/container.js';
import type { CourierPrincipal } from '../../src/domain/auth.js';
import { AppError } from '../../src/domain/errors.js';
import { credentialFrom } from './auth.js';
import { applyRateLimit } from './rate-limit.js';

/** Couriers authenticate with their own token (`Authorization: Bearer ct_…`). */
export function requireCourier(container: Container): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const principal = await container.services.auth.authenticateCourier({ token: credentialFrom(req) });
    res.locals.courier = principal;
    await applyRateLimit(res, container.rateLimiter, `courier:${principal.courier.id}`, container.config.courierRateLimitPerMin);
    next();
  };
}

export function courierOf(res: Response): CourierPrincipal {
  const principal = res.locals.courier as CourierPrincipal | undefined;
  if (!principal) throw new AppError('INTERNAL_ERROR', 'route is missing its courier auth middleware');
  return principal;
}
