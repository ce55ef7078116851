import type { BrowserContextOptions, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { LatLng } from '../../src/domain/types.js';
import { api, startTestApp, type TestApp } from '../helpers/app.js';

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
