import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Router, type Request, type Response } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { rateLimitHeaders } from '../../src/edge/door.js';
import { presentTracking } from '../../src/edge/tracking.js';
import { isAppError } from '../../src/domain/errors.js';
import { RateLimitedError } from '../../src/domain/front-door.js';
import type { TrackingPageView } from '../../src/domain/tracking.js';
import { admitTrackingView, anonymousBudget } from '../middleware/rate-limit.js';
import { AppError } from '../../src/domain/errors.js';
import type { StopTrackingView } from '../../src/domain/tracking.js';
import { escapeAttribute, pageCsp } from '../pages.js';
import { isStopOpen, ORDER_STATUS_SETS, ORDER_STATUSES, ORDER_STEPS } from '../../src/domain/vocabulary.js';
import { fill, TRACKING_CATALOGS, trackingLanguageOf, type TrackingCatalog, type TrackingLanguage } from '../tracking-page-catalog.js';

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

/** `{{name}}` of a page template: escaped text, or HTML the server built itself (`raw`). */
function render(template: string, text: Record<string, string>, raw: Record<string, string> = {}): string {
  return template.replace(/\{\{(\w+)\}\}/g, (all, name: string) => (name in raw ? raw[name]! : name in text ? escapeAttribute(text[name]!) : all));
}

/**
 * The statuses the page's script sorts by, from the domain's vocabulary (track.js holds no list):
 * the steps to the door, the end states, and every other state (off the way to the door).
 */
const TRACKING_VOCABULARY = { steps: ORDER_STEPS, terminal: ORDER_STATUS_SETS.terminal, offPath: ORDER_STATUSES.filter((s) => !(ORDER_STEPS as readonly string[]).includes(s)) };

/** JSON inside `<script type="application/json">`: nothing in it can close the element or open a comment. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');

/** The query of the same page in the other language (the capability kept). */
function otherLanguageQuery(req: Request, t: TrackingCatalog): string {
  const query = new URLSearchParams();
  if (typeof req.query.k === 'string') query.set('k', req.query.k.slice(0, 64));
  query.set('lang', t.page.otherLanguageCode);
  return query.toString();
}

/** "Pedido de {shop}" and the item summary, as HTML (every merchant-given word escaped). */
function shopBlock(page: TrackingPageView, t: TrackingCatalog): string {
  const e = escapeAttribute;
  const shop = page.shopName ? `<p class="shop"><span class="muted">${e(t.page.orderFrom)}</span> <strong id="shop-name">${e(page.shopName)}</strong></p>` : '';
  if (!page.items) return shop;
  const named = page.items.lines.filter((line) => line.name);
  let summary: string;
  if (named.length === 0) summary = page.items.total === 1 ? t.page.oneUnnamedItem : fill(t.page.unnamedItems, { count: page.items.total });
  else {
    summary = named.map((line) => fill(t.page.items, { quantity: line.quantity, name: line.name! })).join(', ');
    const more = page.items.more + (page.items.lines.length - named.length);
    if (more > 0) summary += ` ${fill(t.page.moreItems, { count: more })}`;
  }
  return `${shop}<p class="items"><span class="muted">${e(t.page.contents)}</span> <span id="items">${e(summary)}</span></p>`;
}

/**
 * The customer tracking page at /track/{reference} (outside /api/v1, public), issue #28: rendered
 * here in the customer's language (Spanish by default, `?lang=en` or Accept-Language), with the
 * shop's name, the item summary and the first snapshot in its boot data — so a view costs this one
 * request plus the page's live socket. Through a valid capability link (`?k=`) both are budgeted per
 * link, otherwise per address. A browser gets its errors (404, 429) as pages in its language; a
 * client that asks for JSON (Accept) gets the API's JSON errors.
 */
export function trackingPageRoutes(edge: Edge): Router {
  const router = Router();
  const { tileUrl, attribution } = edge.config.map;
  const page = readFileSync(new URL('track.html', PUBLIC_DIR), 'utf8').replace(
    'data-tile-url="" data-attribution=""',
    `data-tile-url="${escapeAttribute(tileUrl ?? '')}" data-attribution="${escapeAttribute(attribution)}"`,
  );
  const errorPage = readFileSync(new URL('track-error.html', PUBLIC_DIR), 'utf8');
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

  // The landing page's form (GET /track?reference=…): to the page of that reference (a number typed by hand: no capability).
  router.get('/track', (req, res) => {
    const reference = typeof req.query.reference === 'string' ? req.query.reference.trim().slice(0, 64) : '';
    const lang = req.query.lang === 'en' || req.query.lang === 'es' ? `?lang=${req.query.lang}` : '';
    res.redirect(303, reference ? `/track/${encodeURIComponent(reference)}${lang}` : '/');
  });

  function sendHtml(res: Response, status: number, body: string): void {
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Cache-Control', 'private, no-store');
    res.status(status).send(body);
  }

  function sendError(req: Request, res: Response, lang: TrackingLanguage, error: unknown, reference: string): boolean {
    const t = TRACKING_CATALOGS[lang];
    const common = { htmlLang: t.page.htmlLang, otherLanguage: t.page.otherLanguage, otherLanguageCode: t.page.otherLanguageCode, otherLanguageQuery: otherLanguageQuery(req, t) };
    if (error instanceof RateLimitedError) {
      const headers = rateLimitHeaders(error.decision);
      for (const name in headers) res.setHeader(name, headers[name]!);
      const seconds = headers['Retry-After'] ?? '60';
      sendHtml(res, 429, render(errorPage, Object.assign({}, common, {
        view: 'too-many', heading: t.page.tooManyTitle, text: fill(t.page.tooManyText, { seconds }), hint: '', action: t.page.tryAgain, actionHref: req.originalUrl,
      })));
      return true;
    }
    if (isAppError(error) && error.code === 'ORDER_NOT_FOUND') {
      sendHtml(res, 404, render(errorPage, Object.assign({}, common, {
        view: 'not-found', heading: t.page.notFoundTitle, text: fill(t.page.notFoundText, { reference }), hint: t.page.notFoundHint, action: t.page.home, actionHref: '/',
      })));
      return true;
    }
    return false;
  }

  // A multi-stop order's stop link (issue #30): this stop only (status, ETA, comuna, stops before it),
  // never another stop's address or contact; served whole by the server (a refresh link, no socket).
  router.get('/track/stops/:orderId/:stopId', anonymousBudget(edge), async (req, res) => {
    const [orderId, stopId] = [String(req.params.orderId).slice(0, 64), String(req.params.stopId).slice(0, 64)];
    const lang = trackingLanguageOf({ lang: req.query.lang, acceptLanguage: req.headers['accept-language'] });
    res.vary('Accept-Language');
    let view: StopTrackingView;
    try {
      if (!edge.services.trackingLinks.opensStop({ orderId, stopId, capability: req.query.k })) throw new AppError('ORDER_NOT_FOUND', 'No delivery with that tracking reference');
      view = await edge.services.tracking.getStopTracking({ orderId, stopId });
    } catch (error) {
      if (!sendError(req, res, lang, error, orderId)) throw error;
      return;
    }
    const t = TRACKING_CATALOGS[lang];
    const time = new Intl.DateTimeFormat(t.page.htmlLang, { timeZone: 'America/Santiago', weekday: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(view.eta));
    const open = isStopOpen(view.status);
    const progress = view.status !== 'pending' ? '' : view.stopsAhead === 0 ? t.stop.next : view.stopsAhead === 1 ? t.stop.aheadOne : fill(t.stop.ahead, { count: view.stopsAhead });
    sendHtml(res, 200, render(errorPage, {
      htmlLang: t.page.htmlLang, otherLanguage: t.page.otherLanguage, otherLanguageCode: t.page.otherLanguageCode, otherLanguageQuery: otherLanguageQuery(req, t),
      view: `stop-${view.status}`, heading: t.stop[view.status], text: [progress, open ? fill(t.stop.eta, { time }) : ''].filter(Boolean).join(' · '),
      hint: fill(t.stop.where, { place: view.dropoff.label }), action: t.stop.refresh, actionHref: req.originalUrl,
    }));
  });

  router.get('/track/:reference', async (req, res) => {
    const reference = String(req.params.reference).slice(0, 64);
    const lang = trackingLanguageOf({ lang: req.query.lang, acceptLanguage: req.headers['accept-language'] });
    const wantsJson = req.accepts(['html', 'json']) === 'json';
    res.vary('Accept').vary('Accept-Language');
    let view: TrackingPageView;
    try {
      await admitTrackingView(edge, req, res, { reference, capability: req.query.k });
      view = await edge.services.tracking.getTrackingPage({ reference });
    } catch (error) {
      if (wantsJson || !sendError(req, res, lang, error, reference)) throw error;
      return;
    }
    const t = TRACKING_CATALOGS[lang];
    const capability = edge.services.trackingLinks.openedBy({ reference, capability: req.query.k }) ? String(req.query.k) : null;
    const boot = { lang: t.page.htmlLang, reference, capability, shop: view.shopName, tracking: presentTracking(view.view), strings: t.live, vocabulary: TRACKING_VOCABULARY };
    sendHtml(res, 200, render(page, Object.assign({}, t.page, {
      otherLanguageQuery: otherLanguageQuery(req, t), shopTitle: view.shopName ? `${view.shopName} · ` : '',
    }), {
      notFoundText: fill(escapeAttribute(t.page.notFoundText), { reference: `<strong id="not-found-reference">${escapeAttribute(reference)}</strong>` }),
      shopBlock: shopBlock(view, t),
      boot: scriptJson(boot),
    }));
  });
  return router;
}
