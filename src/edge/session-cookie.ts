import type { IncomingMessage } from 'node:http';
import { isTrusted, type TrustProxy } from './client-address.js';

/** The console's session cookie (issue #19): accepted by GraphQL only (HTTP and graphql-ws), never by REST. */
export const SESSION_COOKIE = 'exd_session';
/**
 * Its name over HTTPS: a `__Host-` cookie is kept by the browser only if Secure, Path=/ and without
 * Domain, so no sibling subdomain or plain-HTTP page can plant or shadow it. Plain HTTP (local
 * development) cannot set it and keeps the bare name.
 */
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;
/** The header a cookie-authenticated GraphQL request must carry (a cross-site form or link cannot set it). */
export const CSRF_HEADER = 'x-graphql-csrf';

/**
 * The session id from a Cookie header, if any: the `__Host-` one first, else the bare name (set
 * over plain HTTP, or before the deployment moved to HTTPS; it still names a session of ours).
 */
export function sessionFromCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  let plain: string | undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (name === SECURE_SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      if (value) return value;
    } else if (name === SESSION_COOKIE && plain === undefined) {
      plain = part.slice(eq + 1).trim() || undefined;
    }
  }
  return plain;
}

/**
 * Whether the browser reached us over TLS: a TLS socket, or a trusted proxy (TRUST_PROXY) saying so
 * in X-Forwarded-Proto. The cookie is `Secure` then; over plain HTTP (development) it cannot be.
 */
export function cameOverTls(req: IncomingMessage, trust: TrustProxy): boolean {
  if ((req.socket as { encrypted?: boolean }).encrypted) return true;
  if (trust.kind === 'none') return false;
  const peer = req.socket.remoteAddress?.replace(/^::ffff:/i, '') ?? '';
  if (!isTrusted(trust, peer, 0)) return false;
  const proto = req.headers['x-forwarded-proto'];
  const first = (Array.isArray(proto) ? proto[0] : proto)?.split(',')[0]?.trim().toLowerCase();
  return first === 'https';
}

/**
 * `Set-Cookie` values for a new session (expires with the session's absolute expiry) or, with null,
 * those that clear it. Over TLS the cookie is `__Host-exd_session`, Secure; clearing also clears a
 * bare `exd_session` left from before.
 */
export function sessionCookies(options: { sessionId: string | null; expiresAt?: string; secure: boolean }): string[] {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (options.secure) attributes.push('Secure');
  const name = options.secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
  if (options.sessionId === null) {
    const cleared = [[`${name}=`, 'Max-Age=0', ...attributes].join('; ')];
    if (options.secure) cleared.push([`${SESSION_COOKIE}=`, 'Max-Age=0', 'Path=/', 'HttpOnly', 'SameSite=Lax'].join('; '));
    return cleared;
  }
  return [[`${name}=${options.sessionId}`, `Expires=${new Date(options.expiresAt!).toUTCString()}`, ...attributes].join('; ')];
}

/** HSTS on every answer over HTTPS (a year; no includeSubDomains: the service does not own its parent domain's other hosts). */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000';

/**
 * Whether a WebSocket upgrade carrying the cookie comes from a page of this server: its Origin's
 * host must be the Host it asked for. Browsers always send Origin on upgrades; a socket opened by
 * another site's page must not ride on the member's cookie.
 */
export function upgradeFromSameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  const host = req.headers.host;
  if (!origin || !host) return false;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

/**
 * The courier app's session cookie (issue #27): accepted only by the courier entrances (REST under
 * /api/v1/couriers/me and the courier socket), never by merchant REST or GraphQL; SameSite=Strict.
 */
export const COURIER_SESSION_COOKIE = 'exd_courier_session';
export const SECURE_COURIER_SESSION_COOKIE = `__Host-${COURIER_SESSION_COOKIE}`;
/** The header a cookie-authenticated courier request that changes something must carry (any non-empty value). */
export const COURIER_CSRF_HEADER = 'x-courier-csrf';

/** The courier session id from a Cookie header: the `__Host-` one first, else the bare name. */
export function courierSessionFromCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  let plain: string | undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (name === SECURE_COURIER_SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      if (value) return value;
    } else if (name === COURIER_SESSION_COOKIE && plain === undefined) {
      plain = part.slice(eq + 1).trim() || undefined;
    }
  }
  return plain;
}

/** `Set-Cookie` values for a courier session, or (null) those clearing it; `__Host-` and Secure over TLS. */
export function courierSessionCookies(options: { sessionId: string | null; expiresAt?: string; secure: boolean }): string[] {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Strict'];
  if (options.secure) attributes.push('Secure');
  const name = options.secure ? SECURE_COURIER_SESSION_COOKIE : COURIER_SESSION_COOKIE;
  if (options.sessionId === null) {
    const cleared = [[`${name}=`, 'Max-Age=0', ...attributes].join('; ')];
    if (options.secure) cleared.push([`${COURIER_SESSION_COOKIE}=`, 'Max-Age=0', 'Path=/', 'HttpOnly', 'SameSite=Strict'].join('; '));
    return cleared;
  }
  return [[`${name}=${options.sessionId}`, `Expires=${new Date(options.expiresAt!).toUTCString()}`, ...attributes].join('; ')];
}
