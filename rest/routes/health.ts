import { Router } from 'express';
import type { Container } from '../../src/container.js';
import { publicRateLimit } from '../middleware/auth.js';

export function healthRoutes(container: Container): Router {
  const router = Router();
  router.get('/health', publicRateLimit(container), async (_req, res) => {
    const health = await container.services.health.checkHealth();
    res.status(health.status === 'down' ? 503 : 200).json({ success: health.status !== 'down', ...health });
  });
  return router;
}
