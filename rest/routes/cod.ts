import type { Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { requireMerchant } from '../middleware/auth.js';
import { presentCodReport } from '../presenters/cod.js';
import { principalOf, sendOk } from '../respond.js';

/** Cash on delivery (issue #30): the merchant's report of what was collected and settled. */
export function codRoutes(router: Router, edge: Edge): void {
  const { cod } = edge.services;

  // Readable while suspended: what the platform owes the merchant stays visible.
  router.get('/cod/report', requireMerchant(edge, { level: 'profile' }), async (req, res) => {
    sendOk(res, presentCodReport(await cod.getCodReport({ principal: principalOf(res), input: req.query })));
  });
}
