import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { isAppError } from '../../src/domain/errors.js';
import { anonymousBudget } from '../middleware/rate-limit.js';
import { escapeAttribute, pageCsp } from '../pages.js';

const PUBLIC_DIR = new URL('../../realtime/public/', import.meta.url);

const ASSET_TYPES: Record<string, string> = {
  'track.js': 'text/javascript; charset=utf-8',
  'track.css': 'text/css; charset=utf-8',
  // The driver_image of webhook payloads (shape 1).
  'courier.svg': 'image/svg+xml',
  'leaflet.js': 'text/javascript; charset=utf-8',
  'leaflet.css': 'text/css; charset=utf-8',
};
/** Leaflet's files come from its package (no CDN); the page uses vector markers, not its images. */
const LEAFLET_DIR = dirname(createRequire(import.meta.url).resolve('leaflet/package.json'));
const fileOf = (name: string) => (name.startsWith('leaflet.') ? join(LEAFLET_DIR, 'dist', name) : new URL(name, PUBLIC_DIR));

/**
 * The customer tracking page at /track/{reference} (outside /api/v1, public, limited per IP):
 * static HTML, script and stylesheet read once at start. An unknown reference answers 404 with
 * the same page, which then shows its "not found" state.
 */
export function trackingPageRoutes(edge: Edge): Router {
  const router = Router();
  const { tileUrl, attribution } = edge.config.map;
  const page = readFileSync(new URL('track.html', PUBLIC_DIR), 'utf8').replace(
    'data-tile-url="" data-attribution=""',
    `data-tile-url="${escapeAttribute(tileUrl ?? '')}" data-attribution="${escapeAttribute(attribution)}"`,
  );
  const csp = pageCsp({ tileUrl, formAction: "'none'" });
  const assets = new Map(Object.keys(ASSET_TYPES).map((name) => [name, readFileSync(fileOf(name))]));

  router.get('/track/assets/:file', (req, res, next) => {
    const name = String(req.params.file);
    const body = assets.get(name);
    if (!body) return next();
    res.setHeader('Content-Type', ASSET_TYPES[name]!);
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.send(body);
  });

  // The landing page's form (GET /track?reference=…): to the page of that reference.
  router.get('/track', (req, res) => {
    const reference = typeof req.query.reference === 'string' ? req.query.reference.trim().slice(0, 64) : '';
    res.redirect(303, reference ? `/track/${encodeURIComponent(reference)}` : '/');
  });

  router.get('/track/:reference', anonymousBudget(edge), async (req, res) => {
    let found = true;
    try {
      await edge.services.tracking.findTrackedOrder(String(req.params.reference));
    } catch (error) {
      if (!isAppError(error) || error.code !== 'ORDER_NOT_FOUND') throw error;
      found = false;
    }
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.status(found ? 200 : 404).send(page);
  });
  return router;
}
