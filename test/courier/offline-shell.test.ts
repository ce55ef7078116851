import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { seriousViolations } from '../console/support.js';
import { startCourierApp } from './support.js';

const SKIP = browserSkipReason('the courier app offline shell');

/** Installable: the manifest is linked and read, the worker keeps the shell, the app opens with the server gone. */
describe.skipIf(SKIP !== null)('courier app: installable, opens without a network', () => {
  let t: TestApp;
  let b: OfflinePage;
  let stopped = false;
  beforeAll(async () => {
    t = await startCourierApp();
    b = await openOfflinePage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'es-CL' });
  });
  afterAll(async () => {
    await b?.browser.close();
    if (!stopped) await t?.stop();
  });

  it('without a session: the sign-in help in Spanish, no serious axe finding, at 390 px', async () => {
    await b.page.goto(`${t.url}/courier`);
    await b.page.locator('#signed-out').waitFor();
    expect(await b.page.locator('#signed-out').textContent()).toBe('Sesión cerrada');
    expect(await b.page.locator('main').getAttribute('data-screen')).toBe('signed-out');
    expect(await seriousViolations(b.page)).toEqual([]);
  });

  it('the worker takes control of /courier and keeps the shell; with the server gone the app still opens', async () => {
    await b.page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 20_000 });
    const scope = await b.page.evaluate(async () => (await navigator.serviceWorker.getRegistration('/courier'))?.scope);
    expect(scope).toBe(`${t.url}/courier`);
    const kept = await b.page.evaluate(async () => {
      const names = await caches.keys();
      const cache = await caches.open(names.find((n) => n.startsWith('exd-courier-'))!);
      return (await cache.keys()).map((r) => new URL(r.url).pathname).sort();
    });
    expect(kept).toEqual(expect.arrayContaining(['/courier', '/courier/icon.svg', '/courier/manifest.webmanifest']));
    expect(kept.filter((p) => /^\/courier\/assets\/courier-\w+\.(js|css)$/.test(p))).toHaveLength(2);
    // No server at all (a dead zone is worse than a refused connection only in its timing).
    await t.stop();
    stopped = true;
    const response = await b.page.reload();
    expect(response?.fromServiceWorker()).toBe(true);
    await b.page.locator('main[data-screen=unreachable]').waitFor({ timeout: 20_000 });
    expect(await b.page.locator('#signed-out').textContent()).toBe('Sin conexión');
  });

  it('asked no other host and logged no console error but the expected ones', () => {
    expect(b.foreign).toEqual([]);
    // 401 from /couriers/me (no session) and the refused connections once the server is gone.
    expect(b.problems.filter((p) => !/401|ERR_CONNECTION_REFUSED|Failed to fetch|WebSocket/.test(p))).toEqual([]);
  });
});
