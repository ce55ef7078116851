import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Router, type RequestHandler } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { anonymousBudget } from '../middleware/rate-limit.js';
import { openApiJson } from './document.js';

const swaggerUiDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Only these files are served from swagger-ui-dist (no index.html, no source maps). */
const SWAGGER_ASSETS: Record<string, string> = {
  'swagger-ui.css': join(swaggerUiDir, 'swagger-ui.css'),
  'swagger-ui-bundle.js': join(swaggerUiDir, 'swagger-ui-bundle.js'),
};

// The page's own script: no inline code, so the CSP can forbid inline scripts.
const INIT_SCRIPT = `'use strict';
window.addEventListener('load', function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.dataset.specUrl,
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

/**
 * The reference page loads only its own files: it relaxes the API's `default-src 'none'` just
 * enough for them (styles set through the DOM by Swagger UI are not inline `<style>` and pass).
 */
const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function docsPage(base: string): string {
  const assets = `${base}/docs/assets`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Express Delivery API v1 reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui" data-spec-url="${base}/openapi.json"></div>
<script src="${assets}/swagger-ui-bundle.js"></script>
<script src="${assets}/docs-init.js"></script>
</body>
</html>
`;
}

function serveAsset(): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const name = req.path.slice(1);
    const file = SWAGGER_ASSETS[name];
    if (name !== 'docs-init.js' && !file) return next();
    res.setHeader('Cache-Control', 'public, max-age=3600');
    if (!file) return void res.type('text/javascript').send(INIT_SCRIPT);
    res.sendFile(file, (err) => err && next(err));
  };
}

/** GET /openapi.json and GET /docs (Swagger UI, served from node_modules: works offline). */
export function openApiRoutes(edge: Edge): Router {
  const router = Router();
  const limit = anonymousBudget(edge);
  router.get('/openapi.json', limit, (_req, res) => {
    res.type('application/json').send(openApiJson());
  });
  router.get('/docs', limit, (req, res) => {
    res.setHeader('Content-Security-Policy', DOCS_CSP);
    res.type('text/html').send(docsPage(req.baseUrl));
  });
  // Static files of the page: middleware, not API routes, so they are not in the document.
  router.use('/docs/assets', limit, serveAsset());
  return router;
}
