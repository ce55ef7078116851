import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MerchantCredentials, TestApp } from '../helpers/app.js';
import { browserSkipReason, openOfflinePage, type OfflinePage } from '../helpers/browser.js';
import { PASSWORD } from '../members/support.js';
import { acceptInvitation, invitationLink, seriousViolations, startConsoleApp } from './support.js';

const SKIP = browserSkipReason('the merchant console sign-in with email and password');
const EMAIL = 'sofia@dosnegocios.cl';

describe.skipIf(SKIP !== null)('merchant console: sign-in with email and password, a chooser for several merchants', () => {
  let t: TestApp;
  let first: MerchantCredentials;
  let second: MerchantCredentials;
  let b: OfflinePage;

  beforeAll(async () => {
    t = await startConsoleApp({ SANDBOX_SIMULATOR: 'false' });
    first = await t.createMerchant({ name: 'Librería Norte' });
    second = await t.createMerchant({ name: 'Verdulería Sur' });
    b = await openOfflinePage({ viewport: { width: 1280, height: 900 } });
  });
  afterAll(async () => {
    await b?.browser.close();
    await t?.stop();
  });
  const page = () => b.page;
  const signIn = async () => {
    await page().getByLabel('Contraseña').fill(PASSWORD);
    await page().locator('#sign-in button[type=submit]').click();
  };
  const signOut = async () => {
    await page().locator('#sign-out').click();
    await page().waitForURL(/\/console\/sign-in$/);
  };

  it('an invitation link leads to a sign-in with the email filled in and no merchant id to type', async () => {
    await acceptInvitation(page(), await invitationLink(t, first.merchantId, EMAIL, 'owner'));
    expect(await page().locator('#merchant-name').textContent()).toBe('Librería Norte');
    await signOut();
    expect(await page().locator('#sign-in input').evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).name))).toEqual(['email', 'password']);
    expect(await page().getByLabel('Correo').inputValue()).toBe('');
  });

  it('a member of two merchants chooses after signing in; choosing the other one opens it', async () => {
    await page().goto(await invitationLink(t, second.merchantId, EMAIL, 'viewer'));
    await page().getByLabel('Contraseña nueva').fill(PASSWORD);
    await page().getByLabel('Repite la contraseña').fill(PASSWORD);
    await page().locator('#set-password button[type=submit]').click();
    await page().waitForURL(/\/console\/sign-in\?email=/);
    expect(await page().getByLabel('Correo').inputValue()).toBe(EMAIL);
    await signIn();

    await page().locator('#merchant-choice').waitFor();
    const choices = page().locator('#merchant-choice button');
    expect(await choices.evaluateAll((buttons) => buttons.map((x) => x.getAttribute('data-merchant-id')))).toEqual([first.merchantId, second.merchantId]);
    expect(await choices.nth(1).textContent()).toBe('Verdulería Sur (lector)');
    expect(await seriousViolations(page())).toEqual([]);
    await choices.nth(1).click();
    await page().locator('#orders, #orders-empty').first().waitFor();
    expect(await page().locator('#merchant-name').textContent()).toBe('Verdulería Sur');
    expect(await page().locator('#member-role').getAttribute('data-role')).toBe('viewer');
  });

  it('choosing the merchant the session opened in goes straight on', async () => {
    await signOut();
    await page().getByLabel('Correo').fill(EMAIL);
    await signIn();
    await page().locator('#merchant-choice button', { hasText: 'Librería Norte' }).click();
    await page().locator('#orders, #orders-empty').first().waitFor();
    expect(await page().locator('#merchant-name').textContent()).toBe('Librería Norte');
    expect(await page().locator('#member-role').getAttribute('data-role')).toBe('owner');
  });

  it('a wrong password is refused in the console language, with no merchant mentioned', async () => {
    await signOut();
    await page().getByLabel('Correo').fill(EMAIL);
    await page().getByLabel('Contraseña').fill('not the password at all');
    await page().locator('#sign-in button[type=submit]').click();
    const alert = page().getByRole('alert');
    expect(await alert.getAttribute('data-code')).toBe('INVALID_CREDENTIALS');
    expect(await alert.textContent()).toContain('Correo o contraseña incorrectos.');
  });
});
