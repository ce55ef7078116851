import express, { type Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import type { Edge } from '../../src/edge/edge.js';
import { AppError } from '../../src/domain/errors.js';
import { assertJsonDepth } from '../../src/domain/json-depth.js';
import { prepTimeSchema } from '../../src/domain/merchants.js';
import { parseInput } from '../../src/domain/validation.js';
import { requireMerchant } from '../middleware/auth.js';
import { setRateLimitHeaders } from '../middleware/rate-limit.js';
import { principalOf } from '../respond.js';
import { integrationClientFrom } from './integrations.js';

/** Query of the storefront endpoints (also documented in OpenAPI). */
export const storefrontQuerySchema = z.object({
  prep_time_mins: z.coerce.number().pipe(prepTimeSchema).optional(),
  mode: z.enum(['live', 'test']).optional(),
});

/**
 * The storefront platform's endpoints (Shopify protocol). They take the raw body so that
 * `X-Shopify-Hmac-Sha256` is checked over the exact bytes before anything is parsed; an API key
 * works too. With the signature, `?mode=test` selects the sandbox (the URL registered with the shop).
 */
export function storefrontRoutes(router: Router, edge: Edge, bodyLimit: string): void {
  const { integrations, auth } = edge.services;
  const byApiKey = requireMerchant(edge, {
    level: 'operate',
    integration: 'storefront',
    onAuthenticated: (req, principal) =>
      integrations.recordIntegrationCall({ merchant: principal.merchant, mode: principal.mode, integration: 'storefront', client: integrationClientFrom(req) }),
  });

  const authenticate: RequestHandler = async (req: Request, res: Response, next: NextFunction) => {
    const hmac = req.headers['x-shopify-hmac-sha256'];
    if (typeof hmac !== 'string') return byApiKey(req, res, next);
    const query = parseInput(storefrontQuerySchema, req.query);
    const shopDomain = req.headers['x-shopify-shop-domain'];
    const principal = await integrations.authenticateStorefrontSignature({
      shopDomain: typeof shopDomain === 'string' ? shopDomain : undefined,
      hmac,
      rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
      mode: query.mode ?? 'live',
    });
    res.locals.principal = principal;
    setRateLimitHeaders(res, await edge.door.frontDoor.admit({ kind: 'merchant', merchant: principal, address: edge.door.addressOf(req) }));
    auth.assertMerchantAccess(principal, { level: 'operate', integration: 'storefront' });
    next();
  };

  const parseJson: RequestHandler = (req, _res, next) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    try {
      req.body = raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
    } catch {
      throw new AppError('MALFORMED_JSON', 'Request body is not valid JSON');
    }
    assertJsonDepth(req.body);
    next();
  };

  const rawBody = express.raw({ type: 'application/json', limit: bodyLimit });

  router.post('/storefront/carrier-service', rawBody, authenticate, parseJson, async (req, res) => {
    const query = parseInput(storefrontQuerySchema, req.query);
    const rates = await integrations.quoteForStorefront({
      principal: principalOf(res),
      input: req.body,
      ...(query.prep_time_mins !== undefined && { prepTimeMins: query.prep_time_mins }),
    });
    res.status(200).json({ rates });
  });
  router.post('/storefront/webhooks/orders-create', rawBody, authenticate, async (req, res) => {
    const rawBytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const result = await integrations.receiveStorefrontOrder({ principal: principalOf(res), rawBody: rawBytes });
    res.status(result.created ? 201 : 200).json({
      success: true,
      created: result.created,
      ignored: result.ignored,
      reason: result.reason,
      booking_id: result.order?.id ?? null,
      tracking_number: result.order?.trackingNumber ?? null,
    });
  });
}
