import type { Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { requireMerchant } from '../middleware/auth.js';
import { principalOf, sendOk } from '../respond.js';
import { idempotencyOf } from '../idempotency.js';
import { presentSandboxRun } from '../presenters/sandbox.js';
import { sandboxRunCommand } from '../wire/sandbox.js';

/** Sandbox-only helpers (test keys; live keys get 403). */
export function sandboxRoutes(router: Router, edge: Edge): void {
  router.post('/sandbox/orders/:id/advance', requireMerchant(edge, { level: 'operate' }), async (req, res) => {
    const [principal, ref] = [principalOf(res), String(req.params.id)];
    const order = await edge.services.sandbox.advanceOrder(Object.assign({ principal, ref }, idempotencyOf(req, res)));
    sendOk(res, { booking_id: order.id, status: order.status });
  });
  router.post('/sandbox/runs', requireMerchant(edge, { level: 'operate' }), async (req, res) => {
    const [principal, input] = [principalOf(res), sandboxRunCommand(req.body)];
    const run = await edge.services.sandboxRuns.startRun(Object.assign({ principal, input }, idempotencyOf(req, res)));
    sendOk(res, { run: presentSandboxRun(run) }, 201);
  });
}
