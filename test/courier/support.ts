import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { expect } from 'vitest';
import type { LatLng } from '../../src/domain/types.js';
import { api, startTestApp, type TestApp } from '../helpers/app.js';
import { CHROMIUM } from '../helpers/browser.js';
import { PLACES, formA, merchantApi, north } from '../orders/support.js';

/** No street tiles (a foreign host); no sandbox fleet (the live order must go to the courier on the phone). */
export const COURIER_APP_ENV = {
  MAP_TILE_URL: 'none',
  RATE_LIMIT_PER_MIN: '100000',
  PUBLIC_RATE_LIMIT_PER_MIN: '100000',
  COURIER_RATE_LIMIT_PER_MIN: '100000',
  SANDBOX_SIMULATOR: 'false',
  CREDENTIAL_RECHECK_MS: '500',
};

export const startCourierApp = (env: Record<string, string> = {}): Promise<TestApp> => startTestApp({ env: { ...COURIER_APP_ENV, ...env } });

/** A phone: 390×844, touch, Spanish, location allowed and set. */
export function phone(at: LatLng, options: BrowserContextOptions = {}): BrowserContextOptions {
  return {
    viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: 'es-CL', timezoneId: 'America/Santiago',
    permissions: ['geolocation'], geolocation: { latitude: at.lat, longitude: at.lng, accuracy: 5 },
    ...options,
  };
}

/** A live courier created by the admin service, its raw token (for the test's own reads) and its one-time sign-in link. */
export async function courierWithLink(t: TestApp, name: string): Promise<{ id: string; token: string; link: string }> {
  const admin = t.app.container.services.admin as unknown as Record<string, (options: { input: Record<string, unknown> }) => Promise<Record<string, unknown>>>;
  const created = await admin.createCourier!({ input: { name, phone: '+56955550001', vehicle: 'motorcycle', plate: 'CR1234', mode: 'live' } });
  const link = created.signInUrl as string | undefined;
  expect(link, `createCourier returned ${Object.keys(created).join(', ')}`).toMatch(/\/courier\/welcome#code=/);
  // The link names the configured public address; the test's server is on another port.
  return { id: created.courierId as string, token: created.token as string, link: `${t.url}${new URL(link!).pathname}${new URL(link!).hash}` };
}

export const courierMe = async (t: TestApp, token: string) => (await api(`${t.url}/api/v1/couriers/me`, { key: token })).body.courier;

/** Moves the phone (Chromium's emulated position: watchPosition fires). */
export const moveTo = (page: Page, p: LatLng) => page.context().setGeolocation({ latitude: p.lat, longitude: p.lng, accuracy: 5 });

/** The JPEG's width and height (its SOF marker). */
export function jpegSize(bytes: Buffer): { width: number; height: number } {
  let i = 2;
  while (i < bytes.length) {
    const marker = bytes[i + 1]!;
    const length = bytes.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xc3) return { height: bytes.readUInt16BE(i + 5), width: bytes.readUInt16BE(i + 7) };
    i += 2 + length;
  }
  throw new Error('no SOF marker');
}

/** Draws a stroke on a signature pad (a canvas), as a finger would. */
export async function drawSignature(page: Page, pad = '#signature-pad'): Promise<void> {
  await page.locator(pad).scrollIntoViewIfNeeded();
  const box = (await page.locator(pad).boundingBox())!;
  await page.mouse.move(box.x + 20, box.y + 60);
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) await page.mouse.move(box.x + 20 + i * 25, box.y + 60 + (i % 2) * 40, { steps: 3 });
  await page.mouse.up();
}

/**
 * A courier signed in by link, on duty `metresNorth` of Providencia, given a new live order of the
 * merchant (`order`: Form A fields) and walked to the drop-off: where the proof is taken.
 */
export async function courierAtTheDoor(t: TestApp, options: { name: string; liveKey: string; order?: Record<string, unknown>; metresNorth?: number }) {
  const courier = await courierWithLink(t, options.name);
  const as = (path: string, body: unknown) => api(`${t.url}/api/v1/couriers/me${path}`, { key: courier.token, body });
  await as('/duty', { on_duty: true });
  await as('/location', north(PLACES.providencia, options.metresNorth ?? 1000));
  const id = (await merchantApi(t, options.liveKey).create(formA(options.order ?? {}))).body.booking_id as string;
  for (const status of ['arrived_pickup', 'picked_up', 'arrived_dropoff']) expect((await as(`/orders/${id}/status`, { status })).status).toBe(200);
  return { courier, id, as };
}

/** The courier app's server and a headless Chromium for one describe block (closeCourierApp after it). */
export async function openCourierApp(): Promise<{ t: TestApp; browser: Browser }> {
  const t = await startCourierApp();
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-background-networking'] });
  return { t, browser };
}

export async function closeCourierApp(app: { t?: TestApp; browser?: Browser }): Promise<void> {
  await app.browser?.close();
  await app.t?.stop();
}
