import type { Response } from 'express';
import type { MerchantPrincipal } from '../src/domain/auth.js';
import { AppError } from '../src/domain/errors.js';

export function sendOk(res: Response, body: Record<string, unknown>, status = 200): void {
  res.status(status).json({ success: true, ...body });
}

export function principalOf(res: Response): MerchantPrincipal {
  const principal = res.locals.principal as MerchantPrincipal | undefined;
  if (!principal) throw new AppError('INTERNAL_ERROR', 'route is missing its auth middleware');
  return principal;
}
