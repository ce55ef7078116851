import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { MemberRole } from '../../src/domain/types.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { invite, PASSWORD } from '../members/support.js';

/** No street tiles (they would be a foreign host); a sandbox fleet fast enough to watch a delivery. */
export const CONSOLE_ENV = {
  MAP_TILE_URL: 'none',
  RATE_LIMIT_PER_MIN: '100000',
  PUBLIC_RATE_LIMIT_PER_MIN: '100000',
  SANDBOX_SIMULATOR: 'true',
  SANDBOX_TICK_MS: '200',
  SANDBOX_SPEED: '120',
  SANDBOX_COURIERS_PER_VEHICLE: '1',
};

/** `dataDir`: a store that outlives the app (a restart on it keeps members, sessions and orders). */
export async function startConsoleApp(env: Record<string, string> = {}, options: { dataDir?: string } = {}): Promise<TestApp> {
  return startTestApp({ env: { ...CONSOLE_ENV, ...env }, ...(options.dataDir && { dataDir: options.dataDir }) });
}

/** The invitation link the admin path (CLI `user:invite`) prints, on this server. */
export async function invitationLink(t: TestApp, merchantId: string, email: string, role: MemberRole): Promise<string> {
  return `${t.url}/console/set-password#token=${await invite(t, merchantId, email, role)}`;
}

/** Opens the invitation link, sets the password, signs in on the page it leads to: the orders board. */
export async function acceptInvitation(page: Page, link: string, password = PASSWORD): Promise<void> {
  await page.goto(link);
  await page.getByLabel(/^(Contraseña nueva|New password)/).fill(password);
  await page.getByLabel(/^(Repite la contraseña|Repeat the password)/).fill(password);
  await page.locator('#set-password button[type=submit]').click();
  await page.waitForURL(/\/console\/sign-in\?email=/);
  // The token left the address bar; the email is filled in (sign-in asks no merchant id).
  expect(page.url()).not.toContain('token');
  expect(await page.getByLabel(/^(Correo|Email)$/).inputValue()).not.toBe('');
  await page.getByLabel(/^(Contraseña|Password)$/).fill(password);
  await page.locator('#sign-in button[type=submit]').click();
  await page.locator('#orders, #orders-empty').first().waitFor();
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core on the page as it is now: the serious and critical violations (id and where). */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's CSP forbids inline scripts, and stays on.
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run();
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.targets.join(', ')}`);
}

/** Set before a flow, checked after: still there means the page never reloaded. */
export const markNoReload = (page: Page) => page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
export const stillSameDocument = (page: Page) => page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument === true);
