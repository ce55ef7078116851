import { api, type TestApp } from '../helpers/app.js';

export const COURIER_CSRF = { 'x-courier-csrf': '1' };

/** The code of a courier app sign-in link (`…/courier/welcome#code=…`). */
export const codeOf = (url: string) => new URL(url).hash.replace(/^#code=/, '');

/** The `name=value` of the courier session cookie a response set, if any. */
export function courierCookieFrom(headers: Headers): string | null {
  const set = headers.getSetCookie().find((c) => /^(__Host-)?exd_courier_session=/.test(c));
  return set ? set.split(';')[0]! : null;
}

/** Exchanges a link's code for a session; answers the response and the cookie. */
export async function signIn(t: TestApp, code: string, headers: Record<string, string> = {}) {
  const res = await api(`${t.url}/api/v1/couriers/sessions`, { body: { code }, headers });
  return { res, cookie: courierCookieFrom(res.headers) };
}

/** A courier REST call with the session cookie (and the CSRF header unless told not to). */
export function asCourierApp(t: TestApp, cookie: string, path: string, init: { method?: string; body?: unknown; csrf?: boolean; headers?: Record<string, string> } = {}) {
  const headers = { cookie, ...(init.csrf !== false && COURIER_CSRF), ...init.headers };
  return api(`${t.url}/api/v1${path}`, { ...(init.method && { method: init.method }), ...(init.body !== undefined && { body: init.body }), headers });
}
