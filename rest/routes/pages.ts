import { Router } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { GRAPHIQL_ASSETS_PATH, graphiqlAsset } from '../../src/edge/graphiql.js';
import { anonymousBudget } from '../middleware/rate-limit.js';
import { trackingLanguageOf, type TrackingLanguage } from '../tracking-page-catalog.js';

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
header .lang{color:#fff}button{font:inherit;padding:8px 16px;border:0;border-radius:8px;background:#0f766e;color:#fff;cursor:pointer}.muted{color:#64748b}
`;

const escapeHtml = (text: string) => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The landing page's words (issue #38: the visitor's language, es-CL first); `{…}` marks markup put in. */
const LANDING_WORDS = {
  es: {
    htmlLang: 'es-CL', tagline: 'cotizaciones, pedidos, despacho, seguimiento en vivo y webhooks firmados',
    trackTitle: 'Sigue un envío', trackLabel: 'Número de seguimiento', track: 'Seguir',
    trackHint: 'El número llega en el mensaje de confirmación del comercio (o abre el enlace de ese mensaje).',
    appsTitle: 'Entrar',
    console: 'Consola del comercio', consoleNote: 'pedidos, tablero en vivo, webhooks, claves y equipo (entra con el correo de tu invitación)',
    ops: 'Operación', opsNote: 'comercios, repartidores, pedidos y auditoría (para operadores; el primero entra con el enlace que imprime el primer arranque)',
    courier: 'App del repartidor', courierNote: 'ábrela con el enlace o el código QR que te da la operación, en tu teléfono',
    track2: 'Seguimiento', trackNote: 'para quien recibe: el enlace del mensaje, o el número en el formulario de arriba',
    devTitle: 'Para desarrolladores', docs: 'Referencia de la API REST', openapi: 'documento OpenAPI 3.1',
    graphiql: 'consultas, mutaciones y suscripciones GraphQL en el navegador', health: 'Estado', healthNote: 'de este nodo y sus dependencias',
    auth: 'Autentícate con tu clave de API: {code1} o {code2}.', other: 'English', otherCode: 'en',
  },
  en: {
    htmlLang: 'en', tagline: 'quotes, orders, dispatch, live tracking and signed webhooks',
    trackTitle: 'Track a delivery', trackLabel: 'Tracking number', track: 'Track',
    trackHint: "The number is in the shop's confirmation message (or open that message's link).",
    appsTitle: 'Sign in',
    console: 'Merchant console', consoleNote: 'orders, live board, webhooks, keys and team (sign in with the e-mail of your invitation)',
    ops: 'Operations', opsNote: 'merchants, couriers, orders and audit (for operators; the first one enters with the link the first start prints)',
    courier: 'Courier app', courierNote: 'open it on your phone with the link or QR code operations gives you',
    track2: 'Tracking', trackNote: "for the recipient: the message's link, or the number in the form above",
    devTitle: 'For developers', docs: 'REST API reference', openapi: 'OpenAPI 3.1 document',
    graphiql: 'GraphQL queries, mutations and subscriptions in the browser', health: 'Health', healthNote: 'of this node and its dependencies',
    auth: 'Authenticate with your API key: {code1} or {code2}.', other: 'Español', otherCode: 'es',
  },
} as const;

function landingPage(about: { service: string; version: string }, lang: TrackingLanguage): string {
  const w = LANDING_WORDS[lang];
  return `<!doctype html>
<html lang="${w.htmlLang}">
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
<p><span id="service">${escapeHtml(about.service)}</span> <span id="version">${escapeHtml(about.version)}</span> · ${w.tagline}</p>
<p><a id="other-language" class="lang" href="/?lang=${w.otherCode}" hreflang="${w.otherCode}" lang="${w.otherCode}">${w.other}</a></p>
</header>
<main>
<section>
<h2>${w.trackTitle}</h2>
<form id="track-form" action="/track" method="get">
<input name="reference" aria-label="${w.trackLabel}" aria-describedby="track-hint" placeholder="EXD-XXXX-XXXX-XXXX" required maxlength="64" autocomplete="off">
<button type="submit">${w.track}</button>
</form>
<p id="track-hint" class="muted">${w.trackHint}</p>
</section>
<section>
<h2>${w.appsTitle}</h2>
<ul id="apps">
<li><a id="link-console" href="/console">${w.console}</a>: ${w.consoleNote}</li>
<li><a id="link-ops" href="/ops">${w.ops}</a>: ${w.opsNote}</li>
<li><a id="link-courier" href="/courier">${w.courier}</a>: ${w.courierNote}</li>
<li><a id="link-track" href="#track-form">${w.track2}</a>: ${w.trackNote}</li>
</ul>
</section>
<section>
<h2>${w.devTitle}</h2>
<ul>
<li><a id="link-docs" href="/api/v1/docs">${w.docs}</a> (<a href="/api/v1/openapi.json">${w.openapi}</a>)</li>
<li><a id="link-graphiql" href="/graphql">GraphiQL</a>: ${w.graphiql}</li>
<li><a id="link-health" href="/api/v1/health">${w.health}</a> ${w.healthNote}</li>
</ul>
<p class="muted">${w.auth.replace('{code1}', '<code>Authorization: Bearer ak_test_…</code>').replace('{code2}', '<code>X-API-Key</code>')}</p>
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

  router.get('/', limit, (req, res) => {
    res.setHeader('Content-Security-Policy', LANDING_CSP);
    res.setHeader('Vary', 'Accept-Language');
    const lang = trackingLanguageOf({ lang: req.query.lang, acceptLanguage: req.headers['accept-language'] });
    res.type('text/html').send(landingPage(edge.services.health.describeService(), lang));
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
