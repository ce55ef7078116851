import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import type { Clock } from '../../src/ports/clock.js';
import { startTestApp, type MerchantCredentials, type TestApp } from '../helpers/app.js';
import { gqlAs, invite, logIn, ME, PASSWORD, SET_PASSWORD, signedIn } from './support.js';

/** A clock the test moves forward. */
function movableClock() {
  let offset = 0;
  const clock: Clock = { now: () => new Date(Date.now() + offset) };
  return { clock, advance: (ms: number) => void (offset += ms), reset: () => void (offset = 0) };
}

describe('Team members: sign-in lockouts, link and session expiry, nothing secret in logs', () => {
  let t: TestApp;
  let shop: MerchantCredentials;
  const time = movableClock();
  const lines: string[] = [];
  beforeAll(async () => {
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => void (lines.push(...chunk.toString().split('\n').filter(Boolean)), done()) });
    t = await startTestApp({
      clock: time.clock,
      logger: createLogger({ level: 'info', destination: sink }),
      env: {
        LOGIN_MAX_FAILURES_PER_EMAIL: '3',
        LOGIN_MAX_FAILURES_PER_ADDRESS: '5',
        MEMBER_SESSION_IDLE_MINUTES: '30',
        MEMBER_SESSION_MAX_HOURS: '2',
        MEMBER_INVITATION_TTL_HOURS: '72',
      },
    });
    shop = await t.createMerchant({ name: 'Limits Shop' });
  });
  afterEach(() => time.reset());
  afterAll(() => t.stop());

  it('sign-in failures lock the email out (RATE_LIMITED even with the right password), then the address', async () => {
    await signedIn(t, shop.merchantId, 'locked@tienda.cl', 'viewer');
    await signedIn(t, shop.merchantId, 'other@tienda.cl', 'viewer');
    for (let i = 0; i < 3; i++) expect((await logIn(t, shop.merchantId, 'locked@tienda.cl', 'guess number ' + i)).body.data.logIn.code).toBe('INVALID_CREDENTIALS');
    const locked = await logIn(t, shop.merchantId, 'locked@tienda.cl');
    expect(locked.body.data.logIn.code).toBe('RATE_LIMITED');
    expect(locked.headers.getSetCookie()).toEqual([]);
    // Another email from the same address still signs in, until the address's own bound.
    expect((await logIn(t, shop.merchantId, 'other@tienda.cl')).body.data.logIn.__typename).toBe('MutationLogInSuccess');
    for (let i = 0; i < 2; i++) await logIn(t, shop.merchantId, `nobody${i}@tienda.cl`, 'guess');
    expect((await logIn(t, shop.merchantId, 'other@tienda.cl')).body.data.logIn.code).toBe('RATE_LIMITED');
  });

  it('a set-password link expires after MEMBER_INVITATION_TTL_HOURS', async () => {
    const token = await invite(t, shop.merchantId, 'late@tienda.cl', 'viewer');
    time.advance(72 * 3_600_000 + 1000);
    const res = await gqlAs(t, null, SET_PASSWORD, { variables: { input: { token, password: PASSWORD } } });
    expect(res.body.data.setPassword.code).toBe('PASSWORD_TOKEN_INVALID');
  });

  it('a session ends after MEMBER_SESSION_IDLE_MINUTES unused, and after MEMBER_SESSION_MAX_HOURS however used', async () => {
    // The lockouts of the previous case are per address: this one signs in directly through the service's path.
    const idle = await freshSession('idle@tienda.cl');
    time.advance(29 * 60_000);
    expect((await gqlAs(t, idle, ME)).body.data.me.member.email).toBe('idle@tienda.cl');
    time.advance(29 * 60_000); // 29 min after the last use: still alive
    expect((await gqlAs(t, idle, ME)).body.data.me.member.email).toBe('idle@tienda.cl');
    time.advance(31 * 60_000);
    expect((await gqlAs(t, idle, ME)).body.errors[0].extensions.code).toBe('INVALID_SESSION');

    time.reset();
    const busy = await freshSession('busy@tienda.cl');
    for (let used = 0; used < 4; used++) {
      time.advance(25 * 60_000);
      expect((await gqlAs(t, busy, ME)).body.data.me.member.email).toBe('busy@tienda.cl');
    }
    time.advance(25 * 60_000); // 125 min after sign-in, 25 min after the last use
    expect((await gqlAs(t, busy, ME)).body.errors[0].extensions.code).toBe('INVALID_SESSION');
  });

  /** A session made by the member service (the HTTP sign-ins of this file's address are locked out by now). */
  async function freshSession(email: string): Promise<string> {
    const { members } = t.app.container.services;
    const invitation = await members.adminInviteMember({ input: { merchantId: shop.merchantId, email, role: 'viewer' } });
    await members.setPassword({ input: { token: new URL(invitation.setPasswordUrl).hash.slice('#token='.length), password: PASSWORD } });
    const { sessionId } = await members.logIn({ input: { merchantId: shop.merchantId, email, password: PASSWORD } });
    return `exd_session=${sessionId}`;
  }

  it('retention removes sessions past their absolute expiry (and expired links)', async () => {
    const cookie = await freshSession('pruned@tienda.cl');
    const { retention } = t.app.container.services;
    expect((await retention.pruneStorage()).members).toBe(0);
    time.advance(2 * 3_600_000 + 1000);
    expect((await retention.pruneStorage()).members).toBeGreaterThanOrEqual(1);
    time.reset();
    // Gone from the store, not merely expired: even at the old time the cookie is refused.
    expect((await gqlAs(t, cookie, ME)).body.errors[0].extensions.code).toBe('INVALID_SESSION');
  });

  it('the logs carry no password, password hash, session id or set-password token', async () => {
    await t.app.stop().catch(() => {});
    const text = lines.join('\n');
    expect(text).toContain('sign-in refused');
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toMatch(/scrypt\$/);
    expect(text).not.toMatch(/ms_[A-Za-z0-9_-]{43}/);
    expect(text).not.toMatch(/pt_[A-Za-z0-9_-]{43}/);
    expect(text).not.toContain('guess number');
  });
});
