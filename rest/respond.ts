import type { Response } from 'express';
import type { MerchantPrincipal } from '../src/domain/auth.js';
import { AppError } from '../src/domain/errors.js';

/**
 * Writes `{ success: true, ...body }` as JSON. Written here rather than through res.json: Express's
 * send re-parses and re-formats the Content-Type and runs its ETag/freshness path (ETags are off
 * for this API), which was measurable per request (bench/orders read). HEAD answers stay bodiless
 * (node drops the body of a HEAD response).
 */
export function sendOk(res: Response, body: Record<string, unknown>, status = 200): void {
  const json = JSON.stringify({ success: true, ...body });
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}

export function principalOf(res: Response): MerchantPrincipal {
  const principal = res.locals.principal as MerchantPrincipal | undefined;
  if (!principal) throw new AppError('INTERNAL_ERROR', 'route is missing its auth middleware');
  return principal;
}
