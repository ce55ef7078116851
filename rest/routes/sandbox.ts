import type { Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { requireMerchant } from '../middleware/auth.js';
import { principalOf, sendOk } from '../respond.js';

/** Sandbox-only helpers (test keys; live keys get 403). */
export function sandboxRoutes(router: Router, edge: Edge): void {
  router.post('/sandbox/orders/:id/advance', requireMerchant(edge, { level: 'operate' }), async (req, res) => {
    const order = await edge.services.sandbox.advanceOrder({ principal: principalOf(res), ref: String(req.params.id) });
    sendOk(res, { booking_id: order.id, status: order.status });
  });
}
