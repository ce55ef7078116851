import type { Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import type { AuditActor } from '../../src/domain/types.js';
import { idempotencyOf } from '../idempotency.js';
import { requireAdmin } from '../middleware/admin.js';
import { requireMerchant } from '../middleware/auth.js';
import { presentCodClaim, presentCodHandOver, presentCodPayout, presentCodReport } from '../presenters/cod.js';
import { principalOf, sendOk } from '../respond.js';
import { codClaimsQuery, codHandOverCommand, codPayoutCommand } from '../wire/cod.js';

/**
 * Cash on delivery (issue #30): the merchant's report of what was collected, handed over and paid
 * out; the operators' writes (issue #39) under /admin/cod with the admin token.
 */
export function codRoutes(router: Router, edge: Edge): void {
  const { cod, auditedAdmin } = edge.services;

  // Readable while suspended: what the platform owes the merchant stays visible.
  router.get('/cod/report', requireMerchant(edge, { level: 'profile' }), async (req, res) => {
    sendOk(res, presentCodReport(await cod.getCodReport({ principal: principalOf(res), input: req.query })));
  });

  const admin = requireAdmin(edge);
  const actorOf = (res: { locals: Record<string, unknown> }) => auditedAdmin.as(res.locals.adminActor as AuditActor);

  router.post('/admin/cod/hand-overs', admin, async (req, res) => {
    const input = codHandOverCommand(req.body);
    const handOver = await actorOf(res).recordCodHandOver(Object.assign({ input }, idempotencyOf(req, res)));
    sendOk(res, { hand_over: presentCodHandOver(handOver) }, 201);
  });

  router.post('/admin/cod/payouts', admin, async (req, res) => {
    const input = codPayoutCommand(req.body);
    const payout = await actorOf(res).recordCodPayout(Object.assign({ input }, idempotencyOf(req, res)));
    sendOk(res, { payout: presentCodPayout(payout) }, 201);
  });

  router.get('/admin/cod/claims', admin, async (req, res) => {
    const page = await cod.listCodClaims({ input: codClaimsQuery(req.query) });
    sendOk(res, { claims: page.claims.map(presentCodClaim), next_cursor: page.nextCursor, has_more: page.nextCursor !== null });
  });

  for (const decision of ['confirm', 'reject'] as const) {
    router.post(`/admin/cod/claims/:id/${decision}`, admin, async (req, res) => {
      sendOk(res, { claim: presentCodClaim(await actorOf(res).resolveCodClaim({ input: { claimId: String(req.params.id), decision } })) });
    });
  }
}
