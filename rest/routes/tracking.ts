import type { Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { anonymousBudget } from '../middleware/rate-limit.js';
import { AppError } from '../../src/domain/errors.js';
import { presentStopTracking, presentTracking } from '../../src/edge/tracking.js';
import { sendOk, type PublicCall } from '../respond.js';
import { mountRoute, type DeclaredRoute } from '../route.js';

/** The public tracking poll, which the fast path (rest/fast-path.ts) serves too, declared once (rest/route.ts). */
export function hotTrackingRoute(edge: Edge): DeclaredRoute {
  return {
    method: 'GET',
    path: '/tracking/:reference',
    access: 'tracking-view',
    async handle({ res, params }: PublicCall) {
      const view = await edge.services.tracking.getTracking({ reference: String(params.reference) });
      sendOk(res, presentTracking(view));
    },
  };
}

/**
 * Public: no credentials. With the capability of the order's tracking link (`?k=`) it draws from
 * that link's budget; without it (a number typed by hand) from the anonymous budget of the address.
 */
export function trackingRoutes(router: Router, edge: Edge): void {
  mountRoute(router, edge, hotTrackingRoute(edge));
  // A multi-stop order's stop link: only with its capability (the ids alone open nothing), anonymous budget.
  router.get('/tracking/stops/:orderId/:stopId', anonymousBudget(edge), async (req, res) => {
    const [orderId, stopId] = [String(req.params.orderId), String(req.params.stopId)];
    if (!edge.services.trackingLinks.opensStop({ orderId, stopId, capability: req.query.k })) throw new AppError('ORDER_NOT_FOUND', 'No delivery with that tracking reference');
    sendOk(res, presentStopTracking(await edge.services.tracking.getStopTracking({ orderId, stopId })));
  });
}
