import type { Router } from 'express';
import type { Container } from '../../src/container.js';
import { requireMerchant } from '../middleware/auth.js';
import { principalOf, sendOk } from '../respond.js';

/** Sandbox-only helpers (test keys; live keys get 403). */
export function sandboxRoutes(router: Router, container: Container): void {
  router.post('/sandbox/orders/:id/advance', requireMerchant(container, { level: 'operate' }), async (req, res) => {
    const order = await container.services.sandbox.advanceOrder({ principal: principalOf(res), ref: String(req.params.id) });
    sendOk(res, { booking_id: order.id, status: order.status });
  });
}
