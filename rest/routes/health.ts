import type { Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { anonymousBudget } from '../middleware/rate-limit.js';

export function healthRoutes(router: Router, edge: Edge): void {
  router.get('/health', anonymousBudget(edge), async (_req, res) => {
    const health = await edge.services.health.checkHealth();
    res.status(health.status === 'down' ? 503 : 200).json({ success: health.status !== 'down', ...health });
  });
}
