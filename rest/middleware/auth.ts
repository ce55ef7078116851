import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import type { AccessLevel, MerchantPrincipal } from '../../src/domain/auth.js';
import { AppError } from '../../src/domain/errors.js';
import type { IntegrationName } from '../../src/domain/types.js';
import { setRateLimitHeaders } from './rate-limit.js';

/** Authenticates the API key through the front door (which also takes the request from the key's budget), then applies the merchant status rules. */
export function requireMerchant(
  edge: Edge,
  options: {
    level: AccessLevel;
    integration?: IntegrationName;
    /** Runs once the key is known, before the status checks (e.g. integration telemetry). */
    onAuthenticated?: (req: Request, principal: MerchantPrincipal) => Promise<void>;
  },
): RequestHandler {
  const { door } = edge;
  const { auth } = edge.services;
  return async (req: Request, res: Response, next: NextFunction) => {
    const { caller, decision } = await door.frontDoor.enter(door.credentialsOf(req), 'merchant');
    if (caller.kind !== 'merchant') throw new AppError('INVALID_API_KEY', 'API key missing, invalid or revoked');
    res.locals.principal = caller.merchant;
    setRateLimitHeaders(res, decision);
    await options.onAuthenticated?.(req, caller.merchant);
    auth.assertMerchantAccess(caller.merchant, options);
    next();
  };
}
