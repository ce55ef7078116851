import type { Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { requireMerchant } from '../middleware/auth.js';
import { principalOf, sendOk } from '../respond.js';
import { idempotently } from '../idempotency.js';
import { merchantScope } from '../../src/domain/idempotency.js';

/** Sandbox-only helpers (test keys; live keys get 403). */
export function sandboxRoutes(router: Router, edge: Edge): void {
  router.post('/sandbox/orders/:id/advance', requireMerchant(edge, { level: 'operate' }), async (req, res) => {
    const [principal, ref] = [principalOf(res), String(req.params.id)];
    const order = await idempotently(edge, req, res, {
      scope: merchantScope(principal, 'sandbox.advance'), request: { ref }, execute: () => edge.services.sandbox.advanceOrder({ principal, ref }),
    });
    sendOk(res, { booking_id: order.id, status: order.status });
  });
}
