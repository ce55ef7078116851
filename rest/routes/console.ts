import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Router, type NextFunction, type Request, type Response } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { anonymousBudget } from '../middleware/rate-limit.js';
import { escapeAttribute, pageCsp } from '../pages.js';

/**
 * The bundle console/scripts/build.ts writes: dist/console/ beside the compiled server (`npm run
 * build`), console/build/ when the sources run under tsx (`npm run dev`, tests).
 */
const CONSOLE_DIR = new URL(import.meta.url.endsWith('.ts') ? '../../console/build/' : '../../console/', import.meta.url);

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

function shell(manifest: { script: string; style: string }, map: { tileUrl: string | null; attribution: string }): string {
  return `<!doctype html>
<html lang="es-CL">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Consola · Express Delivery</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/${manifest.style}">
<script type="module" src="/console/assets/${manifest.script}"></script>
</head>
<body>
<div id="app" data-tile-url="${escapeAttribute(map.tileUrl ?? '')}" data-attribution="${escapeAttribute(map.attribution)}"></div>
<noscript>La consola necesita JavaScript. · The console needs JavaScript.</noscript>
</body>
</html>
`;
}

/**
 * The merchant console: the app shell on /console and every /console/* path (client-side routes),
 * its content-hashed files under /console/assets/ (cached a year). Without a build it answers 503.
 */
export function consoleRoutes(edge: Edge): Router {
  const router = Router();
  const manifestFile = new URL('manifest.json', CONSOLE_DIR);
  const built = existsSync(manifestFile);
  const assets = new Map<string, { body: Buffer; gzipped: Buffer | null }>();
  let page = '';
  if (built) {
    const assetDir = new URL('assets/', CONSOLE_DIR);
    for (const name of readdirSync(assetDir)) {
      const body = readFileSync(new URL(name, assetDir));
      // Compressed once at start: the script is ~200 kB, ~65 kB gzipped.
      assets.set(name, { body, gzipped: /\.(js|css|map|txt)$/.test(name) ? gzipSync(body) : null });
    }
    page = shell(JSON.parse(readFileSync(manifestFile, 'utf8')) as { script: string; style: string }, edge.config.map);
  }
  const csp = pageCsp({ tileUrl: edge.config.map.tileUrl, formAction: "'self'" });

  router.get('/console/assets/:file', (req, res, next) => {
    const name = String(req.params.file);
    const asset = assets.get(name);
    if (!asset) return next();
    res.setHeader('Content-Type', TYPES[extname(name)] ?? 'application/octet-stream');
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    if (!asset.gzipped) return res.send(asset.body);
    res.setHeader('Vary', 'Accept-Encoding');
    const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
    if (gzip) res.setHeader('Content-Encoding', 'gzip');
    res.send(gzip ? asset.gzipped : asset.body);
  });

  const sendShell = (_req: Request, res: Response) => {
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('Cache-Control', 'no-cache');
    if (!built) return res.status(503).type('text/plain').send('The console is not built: run `npm run build` (or `npm run console:build` for the sources).\n');
    res.type('text/html').send(page);
  };
  const notAnAsset = (req: Request, _res: Response, next: NextFunction) => (req.path.startsWith('/console/assets/') ? next('router') : next());
  const budget = anonymousBudget(edge);
  router.get('/console', budget, sendShell);
  router.get('/console/{*path}', notAnAsset, budget, sendShell);
  return router;
}
