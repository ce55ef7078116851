import type { Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { anonymousBudget } from '../middleware/rate-limit.js';
import { presentTracking } from '../../src/edge/tracking.js';
import { publicCallOf, sendOk, type PublicCall } from '../respond.js';

/** The public tracking handler, which the fast path (rest/fast-path.ts) serves too. */
export function hotTrackingHandler(edge: Edge) {
  return async ({ res, params }: PublicCall) => {
    const view = await edge.services.tracking.getTracking({ reference: String(params.reference) });
    sendOk(res, presentTracking(view));
  };
}

/** Public: no credentials; draws from the anonymous budget of the client address. */
export function trackingRoutes(router: Router, edge: Edge): void {
  const track = hotTrackingHandler(edge);
  router.get('/tracking/:reference', anonymousBudget(edge), (req, res) => track(publicCallOf(req, res)));
}
