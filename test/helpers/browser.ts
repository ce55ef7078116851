import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { checkRestResponse } from './wire-validator.js';

export const CHROMIUM = '/usr/bin/chromium';

/** Why browser tests are skipped here, or null when Chromium is installed (printed once per file). */
export function browserSkipReason(what: string): string | null {
  const reason = existsSync(CHROMIUM) ? null : `${CHROMIUM} is missing: ${what} is skipped (apt-get install chromium)`;
  if (reason) console.warn(reason);
  return reason;
}

export interface OfflinePage {
  browser: Browser;
  page: Page;
  /** Requests to any host but 127.0.0.1/localhost: refused (as if offline) and listed here. */
  foreign: string[];
  /** Console errors and uncaught page errors. */
  problems: string[];
}

/** Headless Chromium that can reach this machine's servers only. */
export async function openOfflinePage(context: BrowserContextOptions = {}): Promise<OfflinePage> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const page = await (await browser.newContext(context)).newPage();
  const foreign: string[] = [];
  const problems: string[] = [];
  await page.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'data:' || url.protocol === 'blob:' || ['127.0.0.1', 'localhost'].includes(url.hostname)) return route.continue();
    foreign.push(url.href);
    await route.abort('internetdisconnected');
  });
  page.on('websocket', (socket) => {
    if (!['127.0.0.1', 'localhost'].includes(new URL(socket.url()).hostname)) foreign.push(socket.url());
  });
  // What the page's own scripts get from /api/v1 is held to the OpenAPI document like every test request.
  page.on('response', (response) => {
    const url = response.url();
    if (!url.startsWith('http') || !new URL(url).pathname.startsWith('/api/v1')) return;
    const contentType = response.headers()['content-type'] ?? null;
    const method = response.request().method();
    const text = contentType?.includes('json') && method !== 'HEAD' ? response.text() : Promise.resolve('');
    text.then(
      (body) => checkRestResponse({ method, url, status: response.status(), contentType, body }),
      () => undefined, // the page went away first
    );
  });
  page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
  page.on('pageerror', (error) => problems.push(error.message));
  return { browser, page, foreign, problems };
}

/**
 * Markup planted in a name (a merchant's, courier's, customer's, an address): shown as text it is
 * harmless; parsed as HTML it creates an image whose handler would run and a bold element.
 */
export const MARKUP = '<img src=x onerror="window.__planted=1"><b data-planted>x</b>';

/** Elements the page made from planted markup (anywhere, tooltips included), and whether its handler ran. */
export const plantedElements = (page: Page) => page.evaluate(() => ({
  elements: document.querySelectorAll('img[src="x"], [data-planted], b').length,
  ran: (window as unknown as { __planted?: number }).__planted === 1,
}));

/**
 * Hovers every Leaflet marker under `map` in turn and reads the tooltip it opens: its text and how
 * many elements planted markup made in it (img, b).
 */
export async function tooltipsOfMarkers(page: Page, map: string): Promise<{ text: string; planted: number }[]> {
  const markers = page.locator(`${map} path.leaflet-interactive`);
  const seen: { text: string; planted: number }[] = [];
  for (let i = 0; i < (await markers.count()); i++) {
    // A bubbling mouseover on the marker's path is what Leaflet opens a tooltip on (markers may overlap the pointer).
    await markers.nth(i).dispatchEvent('mouseover');
    const tooltip = page.locator(`${map} .leaflet-tooltip`).last();
    await tooltip.waitFor();
    seen.push(await tooltip.evaluate((el) => ({ text: el.textContent ?? '', planted: el.querySelectorAll('img, b, [data-planted]').length })));
    await markers.nth(i).dispatchEvent('mouseout');
  }
  return seen;
}
