import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import type { AccessLevel, MerchantPrincipal } from '../../src/domain/auth.js';
import { AppError } from '../../src/domain/errors.js';
import type { IntegrationName } from '../../src/domain/types.js';
import { setRateLimitHeaders } from './rate-limit.js';

export interface MerchantAccess {
  level: AccessLevel;
  integration?: IntegrationName;
  /** Runs once the key is known, before the status checks (e.g. integration telemetry). */
  onAuthenticated?: (req: Request, principal: MerchantPrincipal) => Promise<void>;
}

/**
 * Authenticates the API key through the front door (which also takes the request from the key's
 * budget and sets the RateLimit-* headers), then applies the merchant status rules. Express's
 * routes (`requireMerchant`) and the fast path (rest/fast-path.ts) both call this.
 */
export async function authenticateMerchant(edge: Edge, req: IncomingMessage, res: ServerResponse, access: MerchantAccess): Promise<MerchantPrincipal> {
  const { caller, decision } = await edge.door.frontDoor.enter(edge.door.credentialsOf(req), 'merchant');
  if (caller.kind !== 'merchant') throw new AppError('INVALID_API_KEY', 'API key missing, invalid or revoked');
  setRateLimitHeaders(res, decision);
  await access.onAuthenticated?.(req as Request, caller.merchant);
  edge.services.auth.assertMerchantAccess(caller.merchant, access);
  return caller.merchant;
}

/** `authenticateMerchant` as Express middleware: the principal goes to `res.locals` (see `principalOf`). */
export function requireMerchant(edge: Edge, access: MerchantAccess): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    res.locals.principal = await authenticateMerchant(edge, req, res, access);
    next();
  };
}
