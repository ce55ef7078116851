import type { Router } from 'express';
import type { Container } from '../../src/container.js';
import { anonymousBudget } from '../middleware/rate-limit.js';
import { presentTracking } from '../../src/edge/tracking.js';
import { sendOk } from '../respond.js';

/** Public: no credentials, limited per client IP. */
export function trackingRoutes(router: Router, container: Container): void {
  router.get('/tracking/:reference', anonymousBudget(container), async (req, res) => {
    const view = await container.services.tracking.getTracking({ reference: String(req.params.reference) });
    sendOk(res, presentTracking(view));
  });
}
