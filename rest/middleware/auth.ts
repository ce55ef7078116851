import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Container } from '../../src/container.js';
import type { AccessLevel, MerchantPrincipal } from '../../src/domain/auth.js';
import type { IntegrationName } from '../../src/domain/types.js';
import { applyRateLimit } from './rate-limit.js';

/** The API key from `Authorization: Bearer <key>` or `X-API-Key: <key>`. */
export function credentialFrom(req: Request): string | undefined {
  const auth = req.headers.authorization;
  if (auth) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    return match?.[1] ?? auth.trim();
  }
  const header = req.headers['x-api-key'];
  return typeof header === 'string' ? header.trim() : undefined;
}

/** Authenticates the API key, applies the merchant status rules, then the per-key rate limit. */
export function requireMerchant(
  container: Container,
  options: {
    level: AccessLevel;
    integration?: IntegrationName;
    /** Runs once the key is known, before the status checks (e.g. integration telemetry). */
    onAuthenticated?: (req: Request, principal: MerchantPrincipal) => Promise<void>;
  },
): RequestHandler {
  const { auth } = container.services;
  return async (req: Request, res: Response, next: NextFunction) => {
    const testMode = req.headers['x-test-mode'];
    const principal = await auth.authenticateApiKey({
      apiKey: credentialFrom(req),
      testModeHeader: typeof testMode === 'string' ? testMode : undefined,
    });
    res.locals.principal = principal;
    const limit = principal.merchant.rateLimitPerMin ?? container.config.rateLimitPerMin;
    await applyRateLimit(res, container.rateLimiter, `key:${principal.keyId}`, limit);
    await options.onAuthenticated?.(req, principal);
    auth.assertMerchantAccess(principal, options);
    next();
  };
}

/** Public endpoints: limited per client IP. */
export function publicRateLimit(container: Container): RequestHandler {
  return async (req, res, next) => {
    await applyRateLimit(res, container.rateLimiter, `ip:${req.ip ?? 'unknown'}`, container.config.publicRateLimitPerMin);
    next();
  };
}
