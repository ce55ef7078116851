import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { seriousViolations, startConsoleApp } from '../console/support.js';
import { courierOnDuty, type CourierClient, PLACES, north } from '../orders/support.js';
import { PASSWORD, signedInOperator } from '../operators/support.js';

const SKIP = browserSkipReason('the ops couriers page: shift ends');

/**
 * Issue #37: on /ops/couriers a dispatcher sees an on-duty courier's planned end and sets, changes
 * or clears it (adminSetCourierShiftEnd); a time more than 16 hours ahead is refused on the page.
 * Headless Chromium on Santiago time.
 */
describe.skipIf(SKIP !== null)('the ops app: a courier\'s planned end of duty', { timeout: 120_000 }, () => {
  let t: TestApp;
  let b: OfflinePage;
  let courier: CourierClient;
  const page = () => b.page;
  const stored = async () => (await t.app.container.store.couriers.findById(courier.id))!;
  /** "HH:MM" on the page's clock `hours` from now, and that instant to the minute. */
  const clockIn = (hours: number) => page().evaluate((h) => {
    const at = new Date(Date.now() + h * 3_600_000);
    at.setSeconds(0, 0);
    const pad = (n: number) => String(n).padStart(2, '0');
    return { hhmm: `${pad(at.getHours())}:${pad(at.getMinutes())}`, at: at.getTime(), sameDay: at.toDateString() === new Date().toDateString() };
  }, hours);

  beforeAll(async () => {
    t = await startConsoleApp({ SANDBOX_SIMULATOR: 'false', COURIER_RATE_LIMIT_PER_MIN: '1000000' });
    courier = await courierOnDuty(t, { mode: 'live', at: north(PLACES.providencia, 300), name: 'Tomás Turno' });
    await signedInOperator(t, 'turnos@ops.cl', 'dispatcher');
    b = await openOfflinePage({ viewport: { width: 1280, height: 800 }, timezoneId: 'America/Santiago', locale: 'es-CL' });
    b.page.setDefaultTimeout(20_000);
    await page().goto(`${t.url}/ops/sign-in`);
    await page().getByLabel(/^(Correo|Email)$/).fill('turnos@ops.cl');
    await page().getByLabel(/^(Contraseña|Password)$/).fill(PASSWORD);
    await page().locator('#sign-in button[type=submit]').click();
    await page().waitForURL((url) => !url.pathname.endsWith('/sign-in'));
    await page().goto(`${t.url}/ops/couriers`);
    await page().locator(`tr[data-courier="${courier.id}"]`).waitFor();
  });
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
  });

  it('sets the planned end from the courier row and shows it there', async () => {
    expect(await page().locator(`#shift-${courier.id}`).count()).toBe(0);
    const { hhmm, at, sameDay } = await clockIn(2);
    await page().locator(`#shift-form-${courier.id} input[name=until]`).fill(hhmm);
    await page().locator(`#shift-form-${courier.id} button[type=submit]`).click();
    await page().locator(`#shift-${courier.id}`).waitFor();
    expect(Date.parse((await stored()).shiftEndsAt!)).toBe(at);
    // The one date format (issue #38 item 11): past Santiago's midnight the end says its day ("8 dic, 00:13").
    const shown = await page().locator(`#shift-${courier.id}`).textContent();
    if (sameDay) expect(shown).toBe(`Hasta las ${hhmm}`);
    else expect(shown).toMatch(new RegExp(`^Hasta las \\d{1,2} \\p{L}+\\.?, ${hhmm}$`, 'u'));
    expect((await courier.me()).body.courier.shift_ends_at).toBe((await stored()).shiftEndsAt);
    expect(await seriousViolations(page())).toEqual([]);
  });

  it('changes it, refuses one more than 16 hours ahead on the page, and clears it', async () => {
    const later = await clockIn(5);
    await page().locator(`#shift-form-${courier.id} input[name=until]`).fill(later.hhmm);
    await page().locator(`#shift-form-${courier.id} button[type=submit]`).click();
    await page().locator(`#shift-${courier.id}`, { hasText: later.hhmm }).waitFor();
    expect(Date.parse((await stored()).shiftEndsAt!)).toBe(later.at);

    const tooLate = await clockIn(20);
    await page().locator(`#shift-form-${courier.id} input[name=until]`).fill(tooLate.hhmm);
    await page().locator(`#shift-form-${courier.id} button[type=submit]`).click();
    await page().locator(`#shift-error-${courier.id}`).waitFor();
    expect(Date.parse((await stored()).shiftEndsAt!)).toBe(later.at);

    await page().locator(`#shift-clear-${courier.id}`).click();
    await page().locator(`#shift-${courier.id}`).waitFor({ state: 'detached' });
    expect((await stored()).shiftEndsAt).toBeNull();
  });
});
