import type { Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { anonymousBudget } from '../middleware/rate-limit.js';
import { presentTracking } from '../../src/edge/tracking.js';
import { sendOk } from '../respond.js';

/** Public: no credentials; draws from the anonymous budget of the client address. */
export function trackingRoutes(router: Router, edge: Edge): void {
  router.get('/tracking/:reference', anonymousBudget(edge), async (req, res) => {
    const view = await edge.services.tracking.getTracking({ reference: String(req.params.reference) });
    sendOk(res, presentTracking(view));
  });
}
