import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Router, type NextFunction, type Request, type Response } from 'express';
import type { Edge } from '../../src/edge/edge.js';
import { anonymousBudget } from '../middleware/rate-limit.js';
import { escapeAttribute, pageCsp } from '../pages.js';

/**
 * The bundles web/scripts/build.ts writes: dist/web/ beside the compiled server (`npm run build`),
 * web/build/ when the sources run under tsx (`npm run dev`, tests).
 */
const WEB_DIR = new URL(import.meta.url.endsWith('.ts') ? '../../web/build/' : '../../web/', import.meta.url);

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

/** One app of the front-end room as the server serves it: its path and its shell's words. */
export interface WebAppPage {
  app: string;
  title: string;
  noscript: string;
  /**
   * An installable app: the shell links its web app manifest (web/<app>/public/manifest.webmanifest)
   * and names its theme colour; its service worker (/<app>/sw.js) may control every /<app> path.
   */
  installable?: { themeColor: string };
  /**
   * Static markup drawn before the script has loaded (a slow link's first visit): removed by the
   * app when it draws itself. Styled by the app's stylesheet, which arrives long before the script.
   */
  boot?: string;
}

/** The apps the server serves; each is a folder of web/ with a main.tsx. */
export const WEB_APP_PAGES: readonly WebAppPage[] = [
  { app: 'console', title: 'Consola · Express Delivery', noscript: 'La consola necesita JavaScript. · The console needs JavaScript.' },
  { app: 'ops', title: 'Operaciones · Express Delivery', noscript: 'La consola de operaciones necesita JavaScript. · The operations console needs JavaScript.' },
  {
    app: 'courier', title: 'Repartidor · Express Delivery', noscript: 'La app de repartidor necesita JavaScript. · The courier app needs JavaScript.', installable: { themeColor: '#0f766e' },
    // One shell for every courier, signed in or not (the worker keeps it): the way in, for whoever has none yet.
    boot: `<main id="boot" class="narrow boot" aria-busy="true">
<h1>Repartidor · Express Delivery</h1>
<p role="status">Abriendo la app…</p>
<p>¿Aún no entras? Abre en este teléfono el enlace de acceso que te envió tu central.</p>
<p lang="en">Opening the app… Not signed in yet? Open the sign-in link your dispatcher sent you on this phone.</p>
</main>`,
  },
];

interface Asset { body: Buffer; gzipped: Buffer | null }
interface Assets { files: Map<string, Asset>; manifest: Record<string, { script: string; style: string; public?: string[] }>; publicFiles: Map<string, Asset> }

const compressible = (name: string) => /\.(js|css|map|txt|webmanifest|svg|json)$/.test(name);

/** The built files, read and compressed once at start (a script is ~200 kB, ~65 kB gzipped); null without a build. */
function loadAssets(): Assets | null {
  const manifestFile = new URL('manifest.json', WEB_DIR);
  if (!existsSync(manifestFile)) return null;
  const files = new Map<string, { body: Buffer; gzipped: Buffer | null }>();
  const assetDir = new URL('assets/', WEB_DIR);
  for (const name of readdirSync(assetDir)) {
    const body = readFileSync(new URL(name, assetDir));
    files.set(name, { body, gzipped: compressible(name) ? gzipSync(body) : null });
  }
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Assets['manifest'];
  // Each app's files outside assets/ (manifest, icons, service worker), keyed "<app>/<name>".
  const publicFiles = new Map<string, Asset>();
  for (const [app, entry] of Object.entries(manifest)) {
    for (const name of entry.public ?? []) {
      const body = readFileSync(new URL(`${app}/${name}`, WEB_DIR));
      publicFiles.set(`${app}/${name}`, { body, gzipped: compressible(name) ? gzipSync(body) : null });
    }
  }
  return { files, manifest, publicFiles };
}

function shell(page: WebAppPage, files: { script: string; style: string }, map: { tileUrl: string | null; attribution: string }): string {
  return `<!doctype html>
<html lang="es-CL">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title}</title>
${page.installable ? `<link rel="manifest" href="/${page.app}/manifest.webmanifest">
<meta name="theme-color" content="${page.installable.themeColor}">
<link rel="icon" href="/${page.app}/icon.svg" type="image/svg+xml">
<link rel="apple-touch-icon" href="/${page.app}/icon.svg">` : '<link rel="icon" href="data:,">'}
<link rel="stylesheet" href="/${page.app}/assets/${files.style}">
<script type="module" src="/${page.app}/assets/${files.script}"></script>
</head>
<body>
${page.boot ?? ''}
<div id="app" data-tile-url="${escapeAttribute(map.tileUrl ?? '')}" data-attribution="${escapeAttribute(map.attribution)}"></div>
<noscript>${page.noscript}</noscript>
</body>
</html>
`;
}

/** The service worker's own policy (the API's default, `default-src 'none'`, would forbid its fetches). */
const WORKER_CSP = "default-src 'none'; connect-src 'self'; frame-ancestors 'none'";

/** A built file, gzipped when the client takes it. */
function sendAsset(req: Request, res: Response, name: string, asset: Asset): void {
  res.setHeader('Content-Type', TYPES[extname(name)] ?? 'application/octet-stream');
  if (!asset.gzipped) {
    res.send(asset.body);
    return;
  }
  res.setHeader('Vary', 'Accept-Encoding');
  const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
  if (gzip) res.setHeader('Content-Encoding', 'gzip');
  res.send(gzip ? asset.gzipped : asset.body);
}

/**
 * The front-end room's apps: each app's shell on /<app> and every /<app>/* path (client-side
 * routes), the content-hashed files under /<app>/assets/ (cached a year). Without a build they answer 503.
 */
export function webAppRoutes(edge: Edge, pages: readonly WebAppPage[] = WEB_APP_PAGES): Router {
  const router = Router();
  const assets = loadAssets();
  const csp = pageCsp({ tileUrl: edge.config.map.tileUrl, formAction: "'self'" });
  const installableCsp = pageCsp({ tileUrl: edge.config.map.tileUrl, formAction: "'self'", installable: true });
  const budget = anonymousBudget(edge);
  for (const page of pages) {
    const files = assets?.manifest[page.app];
    const html = files ? shell(page, files, edge.config.map) : null;
    const prefix = `/${page.app}/assets/`;
    router.get(`${prefix}:file`, (req, res, next) => {
      const name = String(req.params.file);
      const asset = assets?.files.get(name);
      if (!asset) return next();
      res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      sendAsset(req, res, name, asset);
    });
    // Not hashed (the manifest and the worker keep their addresses): revalidated on every use.
    for (const name of files?.public ?? []) {
      const asset = assets!.publicFiles.get(`${page.app}/${name}`)!;
      router.get(`/${page.app}/${name}`, (req, res) => {
        res.setHeader('Cache-Control', 'no-cache');
        // The worker lives at /<app>/sw.js and controls /<app> itself as well as /<app>/…
        if (name === 'sw.js') {
          res.setHeader('Service-Worker-Allowed', `/${page.app}`);
          // A worker runs under its own script's CSP: it may fetch this origin (to keep the shell), nothing else.
          res.setHeader('Content-Security-Policy', WORKER_CSP);
        }
        sendAsset(req, res, name, asset);
      });
    }
    const sendShell = (_req: Request, res: Response) => {
      res.setHeader('Content-Security-Policy', page.installable ? installableCsp : csp);
      res.setHeader('Cache-Control', 'no-cache');
      if (!html) return res.status(503).type('text/plain').send(`The ${page.app} app is not built: run \`npm run build\` (or \`npm run web:build\` for the sources).\n`);
      res.type('text/html').send(html);
    };
    const notAnAsset = (req: Request, _res: Response, next: NextFunction) => (req.path.startsWith(prefix) ? next('router') : next());
    router.get(`/${page.app}`, budget, sendShell);
    router.get(`/${page.app}/{*path}`, notAnAsset, budget, sendShell);
  }
  return router;
}
