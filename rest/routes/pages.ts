import { Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { GRAPHIQL_ASSETS_PATH, graphiqlAsset } from '../../src/edge/graphiql.js';
import { anonymousBudget } from '../middleware/rate-limit.js';

/** Static text, one stylesheet of its own; the form is a plain GET to /track (no script at all). */
const LANDING_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const LANDING_CSS = `body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;color:#0f172a;background:#f1f5f9}
header{background:#0f766e;color:#fff;padding:24px 16px}header h1{margin:0;font-size:1.6rem}header p{margin:4px 0 0;opacity:.9}
main{max-width:720px;margin:0 auto;padding:16px}section{background:#fff;border-radius:12px;padding:16px 20px;margin:16px 0;box-shadow:0 1px 2px #0f172a14}
h2{font-size:1.1rem;margin:0 0 8px}ul{margin:0;padding-left:20px}a{color:#0f766e}code{background:#f1f5f9;padding:1px 4px;border-radius:4px}
form{display:flex;gap:8px;flex-wrap:wrap}input{flex:1 1 220px;font:inherit;padding:8px 10px;border:1px solid #cbd5e1;border-radius:8px}
button{font:inherit;padding:8px 16px;border:0;border-radius:8px;background:#0f766e;color:#fff;cursor:pointer}.muted{color:#64748b}
`;

const escapeHtml = (text: string) => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

function landingPage(about: { service: string; version: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Express Delivery ${escapeHtml(about.version)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/landing.css">
</head>
<body>
<header>
<h1>Express Delivery</h1>
<p><span id="service">${escapeHtml(about.service)}</span> <span id="version">${escapeHtml(about.version)}</span> · quotes, orders, dispatch, live tracking and signed webhooks</p>
</header>
<main>
<section>
<h2>Track a delivery</h2>
<form id="track-form" action="/track" method="get">
<input name="reference" aria-label="Tracking number" placeholder="EXD-XXXX-XXXX-XXXX" required maxlength="64" autocomplete="off">
<button type="submit">Track</button>
</form>
</section>
<section>
<h2>For developers</h2>
<ul>
<li><a id="link-console" href="/console">Merchant console</a>: orders, live board, webhooks, keys and team (sign in with your email)</li>
<li><a id="link-docs" href="/api/v1/docs">REST API reference</a> (<a href="/api/v1/openapi.json">OpenAPI 3.1 document</a>)</li>
<li><a id="link-graphiql" href="/graphql">GraphiQL</a>: GraphQL queries, mutations and subscriptions in the browser</li>
<li><a id="link-health" href="/api/v1/health">Health</a> of this node and its dependencies</li>
</ul>
<p class="muted">Authenticate with your API key: <code>Authorization: Bearer ak_test_…</code> or <code>X-API-Key</code>.</p>
</section>
</main>
</body>
</html>
`;
}

/** The landing page at / and GraphiQL's own files (the page itself is Yoga's, on GET /graphql). */
export function pageRoutes(edge: Edge): Router {
  const router = Router();
  const limit = anonymousBudget(edge);

  router.get('/', limit, (_req, res) => {
    res.setHeader('Content-Security-Policy', LANDING_CSP);
    res.type('text/html').send(landingPage(edge.services.health.describeService()));
  });
  router.get('/assets/landing.css', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('text/css').send(LANDING_CSS);
  });

  // Counted like the reference page's files: the bundle is megabytes.
  router.get(`${GRAPHIQL_ASSETS_PATH}/:file`, limit, async (req, res, next) => {
    const asset = await graphiqlAsset(String(req.params.file));
    if (!asset) return next();
    const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
    res.setHeader('Content-Type', asset.type);
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.setHeader('Vary', 'Accept-Encoding');
    if (gzip) res.setHeader('Content-Encoding', 'gzip');
    res.send(gzip ? asset.gzipped() : asset.body);
  });
  return router;
}
