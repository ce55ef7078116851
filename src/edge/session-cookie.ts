import type { IncomingMessage } from 'node:http';
import { isTrusted, type TrustProxy } from './client-address.js';

/** The console's session cookie (issue #19): accepted by GraphQL only (HTTP and graphql-ws), never by REST. */
export const SESSION_COOKIE = 'exd_session';
/** The header a cookie-authenticated GraphQL request must carry (a cross-site form or link cannot set it). */
export const CSRF_HEADER = 'x-graphql-csrf';

/** The session id from a Cookie header, if any (the first `exd_session`). */
export function sessionFromCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/**
 * Whether the browser reached us over TLS: a TLS socket, or a trusted proxy (TRUST_PROXY) saying so
 * in X-Forwarded-Proto. The cookie is `Secure` then; over plain HTTP (development) it cannot be.
 */
export function cameOverTls(req: IncomingMessage, trust: TrustProxy): boolean {
  if ((req.socket as { encrypted?: boolean }).encrypted) return true;
  const peer = req.socket.remoteAddress?.replace(/^::ffff:/i, '') ?? '';
  if (!isTrusted(trust, peer, 0)) return false;
  const proto = req.headers['x-forwarded-proto'];
  const first = (Array.isArray(proto) ? proto[0] : proto)?.split(',')[0]?.trim().toLowerCase();
  return first === 'https';
}

/** `Set-Cookie` for a new session (expires with the session's absolute expiry) or, with null, one that clears it. */
export function sessionCookie(options: { sessionId: string | null; expiresAt?: string; secure: boolean }): string {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (options.secure) attributes.push('Secure');
  if (options.sessionId === null) return [`${SESSION_COOKIE}=`, 'Max-Age=0', ...attributes].join('; ');
  return [`${SESSION_COOKIE}=${options.sessionId}`, `Expires=${new Date(options.expiresAt!).toUTCString()}`, ...attributes].join('; ');
}

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
