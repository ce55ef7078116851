import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

/** The courier app is served like the console, plus what makes it installable: manifest, icon, service worker. */
describe('courier app: shell, manifest and service worker', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { MAP_TILE_URL: 'none' } });
  });
  afterAll(() => t?.stop());

  it('answers one shell for /courier and its paths, linking the manifest, with a strict CSP that admits its own manifest and worker', async () => {
    const pages = await Promise.all(['/courier', '/courier/', '/courier/welcome'].map((path) => fetch(`${t.url}${path}`)));
    const bodies = await Promise.all(pages.map((res) => res.text()));
    for (const res of pages) {
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const csp = res.headers.get('content-security-policy')!.split('; ');
      expect(csp).toEqual(expect.arrayContaining(["default-src 'none'", "script-src 'self'", "connect-src 'self'", "manifest-src 'self'", "worker-src 'self'", "img-src 'self' data:"]));
      expect(csp.join(' ')).not.toMatch(/unsafe-inline|unsafe-eval/);
    }
    expect(new Set(bodies).size).toBe(1);
    const shell = bodies[0]!;
    expect(shell).toContain('<html lang="es-CL">');
    expect(shell).toMatch(/<script type="module" src="\/courier\/assets\/courier-\w+\.js"><\/script>/);
    expect(shell).toContain('<link rel="manifest" href="/courier/manifest.webmanifest">');
    expect(shell.match(/<script[^>]*>/g)).toHaveLength(1);
    expect(shell).not.toMatch(/<style|https?:\/\//);
    // A screen before the script (a first visit on a slow link): the way in, in the HTML itself, before #app.
    expect(shell).toMatch(/<main id="boot"[^>]*>[\s\S]*Abre en este teléfono el enlace de acceso[\s\S]*<\/main>\s*<div id="app"/);
    // The console keeps its CSP without the worker.
    expect((await fetch(`${t.url}/console`)).headers.get('content-security-policy')).not.toContain('worker-src');
  });

  it('serves the manifest, the icon and the worker with their types, revalidated, the worker allowed the /courier scope', async () => {
    const manifest = await fetch(`${t.url}/courier/manifest.webmanifest`);
    expect(manifest.headers.get('content-type')).toBe('application/manifest+json');
    expect(manifest.headers.get('cache-control')).toBe('no-cache');
    expect(await manifest.json()).toMatchObject({ lang: 'es-CL', start_url: '/courier', scope: '/courier', display: 'standalone', icons: [expect.objectContaining({ src: '/courier/icon.svg' }), expect.anything()] });
    const icon = await fetch(`${t.url}/courier/icon.svg`);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    const sw = await fetch(`${t.url}/courier/sw.js`);
    expect(sw.status).toBe(200);
    expect(sw.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(sw.headers.get('service-worker-allowed')).toBe('/courier');
    expect(sw.headers.get('cache-control')).toBe('no-cache');
    // The worker runs under its own script's policy: fetches to this origin only.
    expect(sw.headers.get('content-security-policy')).toBe("default-src 'none'; connect-src 'self'; frame-ancestors 'none'");
    const code = await sw.text();
    const shell = await (await fetch(`${t.url}/courier`)).text();
    const script = /src="(\/courier\/assets\/courier-\w+\.js)"/.exec(shell)![1]!;
    const style = /href="(\/courier\/assets\/courier-\w+\.css)"/.exec(shell)![1]!;
    // The worker keeps exactly the shell this server answers.
    expect(code).toContain(script);
    expect(code).toContain(style);
    expect(code).toContain('/courier/manifest.webmanifest');
    expect((await fetch(`${t.url}/console/sw.js`)).headers.get('content-type')).toMatch(/^text\/html/);
  });
});
