import type { Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { requireMerchant } from '../middleware/auth.js';
import { presentMerchant } from '../presenters/merchant.js';
import { principalOf, sendOk } from '../respond.js';
import { idempotencyOf } from '../idempotency.js';
import { updateSettingsCommand } from '../wire/merchants.js';

export function merchantRoutes(router: Router, edge: Edge): void {
  const { merchants } = edge.services;
  const defaultLimit = edge.config.rateLimitPerMin;

  router.get('/merchants/me', requireMerchant(edge, { level: 'profile' }), async (_req, res) => {
    const { merchant, mode } = principalOf(res);
    sendOk(res, { merchant: presentMerchant(merchant, mode, defaultLimit) });
  });

  for (const method of ['post', 'patch'] as const) {
    router[method]('/merchants/settings', requireMerchant(edge, { level: 'settings' }), async (req, res) => {
      const principal = principalOf(res);
      const { mode } = principal;
      const input = updateSettingsCommand(req.body, { requirePrepTime: method === 'patch' });
      const updated = await merchants.updateMerchantSettings(Object.assign({ principal, input }, idempotencyOf(req, res)));
      const presented = presentMerchant(updated, mode, defaultLimit);
      sendOk(res, { message: 'Settings updated', prep_time_mins: presented.prep_time_mins, settings: presented.settings });
    });
  }
}
