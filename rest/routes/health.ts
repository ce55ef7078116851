import type { Router } from 'express';
import type { Container } from '../../src/container.js';
import { anonymousBudget } from '../middleware/rate-limit.js';

export function healthRoutes(router: Router, container: Container): void {
  router.get('/health', anonymousBudget(container), async (_req, res) => {
    const health = await container.services.health.checkHealth();
    res.status(health.status === 'down' ? 503 : 200).json({ success: health.status !== 'down', ...health });
  });
}
