import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

/** The console is served by the service itself: the app shell on every /console path, hashed assets, a strict CSP. */
describe('console: app shell and assets', () => {
  let t: TestApp;
  let tiles: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { MAP_TILE_URL: 'none' } });
    tiles = await startTestApp({ env: { MAP_TILE_URL: 'https://{s}.tiles.example.cl/{z}/{x}/{y}.png', MAP_TILE_ATTRIBUTION: '© Example' } });
  });
  afterAll(async () => {
    await t?.stop();
    await tiles?.stop();
  });

  it('answers the same shell for /console and its client-side routes, with a self-only CSP and no inline script', async () => {
    const pages = await Promise.all(['/console', '/console/', '/console/orders/EXD-1', '/console/set-password', '/console/orders/new'].map((path) => fetch(`${t.url}${path}`)));
    const bodies = await Promise.all(pages.map((res) => res.text()));
    for (const res of pages) {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const csp = res.headers.get('content-security-policy')!;
      expect(csp.split('; ')).toEqual(expect.arrayContaining(["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "img-src 'self' data:", "frame-ancestors 'none'"]));
    }
    expect(new Set(bodies).size).toBe(1);
    const shell = bodies[0]!;
    expect(shell).toMatch(/<script type="module" src="\/console\/assets\/console-\w+\.js"><\/script>/);
    expect(shell).toMatch(/<link rel="stylesheet" href="\/console\/assets\/console-\w+\.css">/);
    // Every script is a file of this origin: nothing inline, nothing from another host.
    expect(shell.match(/<script[^>]*>/g)).toHaveLength(1);
    expect(shell).not.toMatch(/<style|https?:\/\//);
    expect(shell).toContain('data-tile-url=""');
  });

  it('serves the hashed script, stylesheet and Leaflet images cached for a year; unknown files are 404', async () => {
    const shell = await (await fetch(`${t.url}/console`)).text();
    const script = /src="(\/console\/assets\/console-\w+\.js)"/.exec(shell)![1]!;
    const style = /href="(\/console\/assets\/console-\w+\.css)"/.exec(shell)![1]!;
    const js = await fetch(`${t.url}${script}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await js.text()).toContain('/graphql');
    const zipped = await fetch(`${t.url}${script}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(zipped.headers.get('vary')).toBe('Accept-Encoding');
    expect(await zipped.text()).toContain('/graphql');
    const plain = await fetch(`${t.url}${script}`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    const css = await fetch(`${t.url}${style}`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const image = /url\("?\.\/(layers-\w+\.png)"?\)/.exec(await css.text())?.[1];
    expect(image).toBeDefined();
    expect((await fetch(`${t.url}/console/assets/${image}`)).headers.get('content-type')).toBe('image/png');
    expect((await fetch(`${t.url}/console/assets/console-NOPE.js`)).status).toBe(404);
  });

  it('lets the configured tile host into img-src and hands the tile URL to the app', async () => {
    const res = await fetch(`${tiles.url}/console/orders/x`);
    expect(res.headers.get('content-security-policy')).toContain("img-src 'self' data: https://*.tiles.example.cl");
    expect(await res.text()).toContain('data-tile-url="https://{s}.tiles.example.cl/{z}/{x}/{y}.png" data-attribution="© Example"');
  });
});
