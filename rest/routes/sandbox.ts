import type { Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { requireMerchant } from '../middleware/auth.js';
import { principalOf, sendOk } from '../respond.js';
import { idempotently } from '../idempotency.js';
import { merchantScope } from '../../src/domain/idempotency.js';
import { presentSandboxRun } from '../presenters/sandbox.js';
import { sandboxRunCommand } from '../wire/sandbox.js';

/** Sandbox-only helpers (test keys; live keys get 403). */
export function sandboxRoutes(router: Router, edge: Edge): void {
  router.post('/sandbox/orders/:id/advance', requireMerchant(edge, { level: 'operate' }), async (req, res) => {
    const [principal, ref] = [principalOf(res), String(req.params.id)];
    const order = await idempotently(edge, req, res, {
      scope: merchantScope(principal, 'sandbox.advance'), request: { ref }, execute: () => edge.services.sandbox.advanceOrder({ principal, ref }),
    });
    sendOk(res, { booking_id: order.id, status: order.status });
  });
  router.post('/sandbox/runs', requireMerchant(edge, { level: 'operate' }), async (req, res) => {
    const [principal, input] = [principalOf(res), sandboxRunCommand(req.body)];
    const run = await idempotently(edge, req, res, {
      scope: merchantScope(principal, 'sandbox.run'), request: { input }, execute: () => edge.services.sandboxRuns.startRun({ principal, input }),
    });
    sendOk(res, { run: presentSandboxRun(run) }, 201);
  });
}
