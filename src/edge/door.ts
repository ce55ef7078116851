import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { BudgetDecision as RateLimitDecision, Caller, Credentials, FrontDoor } from '../domain/front-door.js';
import { createClientAddressResolver, type TrustProxy } from './client-address.js';
import { cameOverTls, COURIER_CSRF_HEADER, courierSessionFromCookie, CSRF_HEADER, sessionFromCookie } from './session-cookie.js';
import { createUnpaidWindows, UNPAID_MESSAGES } from './unpaid-messages.js';

export interface SocketCaps {
  socketsPerAddress: number;
  socketsPerCredential: number;
  subscriptionsPerSocket: number;
  subscriptionsPerAuthenticatedSocket: number;
}

/** The token from `Authorization: Bearer <token>` (or a bare Authorization value), else `X-API-Key`. */
export function tokenFrom(authorization: string | null | undefined, apiKey: string | null | undefined): string | undefined {
  if (authorization) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return match?.[1] ?? (authorization.trim() || undefined);
  }
  return apiKey?.trim() || undefined;
}

/**
 * The token of the two key headers, and whether they disagree: `Authorization` and `X-API-Key`
 * carrying two different keys is refused (the front door), never settled by picking one; the same
 * key in both is fine.
 */
export function tokenOfHeaders(authorization: string | null | undefined, apiKey: string | null | undefined): Pick<Credentials, 'token' | 'conflictingKeys'> {
  const token = tokenFrom(authorization, apiKey);
  const other = apiKey?.trim();
  return token !== undefined && other && authorization && other !== token ? { token, conflictingKeys: true } : { token };
}

const header = (headers: IncomingHttpHeaders, name: string) => {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
};

/** RateLimit-* (and, when refused, Retry-After) for a decision: the same headers on every entrance. */
export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  const reset = String(Math.max(1, Math.ceil(decision.resetMs / 1000)));
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': reset,
  };
  if (!decision.allowed) headers['Retry-After'] = reset;
  return headers;
}

/** Per-node counters of open sockets, by address and by credential; a slot is freed by calling what `take…` returned. */
function createSocketSlots(caps: SocketCaps) {
  const byAddress = new Map<string, number>();
  const byCredential = new Map<string, number>();
  const unpaidByAccount = createUnpaidWindows(UNPAID_MESSAGES.perAccount);
  const take = (counts: Map<string, number>, key: string, cap: number): (() => void) | null => {
    const open = counts.get(key) ?? 0;
    if (open >= cap) return null;
    counts.set(key, open + 1);
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      const left = (counts.get(key) ?? 1) - 1;
      if (left > 0) counts.set(key, left);
      else counts.delete(key);
    };
  };
  return {
    takeAddressSlot: (address: string) => take(byAddress, address, caps.socketsPerAddress),
    takeCredentialSlot: (token: string) => take(byCredential, token, caps.socketsPerCredential),
    /** Counts an unpaid message (a ping, a refused frame) of a socket of `account` (its address, or its credential once identified); false once the account's window is spent. */
    takeUnpaid: (account: string) => unpaidByAccount.take(account),
    subscriptionsAllowed: (caller: Caller) => (caller.kind === 'anonymous' ? caps.subscriptionsPerSocket : caps.subscriptionsPerAuthenticatedSocket),
    stats: () => ({ addresses: byAddress.size, credentials: byCredential.size }),
  };
}

export type EdgeDoor = ReturnType<typeof createEdgeDoor>;

/**
 * What every entrance shares at the edge: the client's address (TRUST_PROXY applied once, here),
 * the credentials a request or socket presents, the socket slots, and the domain's front door.
 */
export function createEdgeDoor(options: { frontDoor: FrontDoor; trustProxy: TrustProxy; caps: SocketCaps }) {
  const addressOf = createClientAddressResolver(options.trustProxy);
  return {
    frontDoor: options.frontDoor,
    addressOf,
    sockets: createSocketSlots(options.caps),
    /** An HTTP request's or upgrade's credentials. */
    credentialsOf(req: IncomingMessage): Credentials {
      const { headers } = req;
      return Object.assign(tokenOfHeaders(header(headers, 'authorization'), header(headers, 'x-api-key')), { testMode: header(headers, 'x-test-mode'), address: addressOf(req) });
    },
    /**
     * A GraphQL request's credentials: the headers' token, or else the console's session cookie with
     * the mode it chose (`X-Mode`). Only GraphQL calls this: REST never accepts the cookie.
     */
    browserCredentialsOf(req: IncomingMessage): Credentials {
      const credentials = this.credentialsOf(req);
      if (credentials.token) return credentials;
      credentials.session = sessionFromCookie(header(req.headers, 'cookie'));
      credentials.sessionMode = header(req.headers, 'x-mode');
      return credentials;
    },
    /**
     * A courier entrance's credentials: the headers' token, or else the courier app's session cookie
     * (issue #27). Only the courier REST paths and the courier socket call this.
     */
    courierCredentialsOf(req: IncomingMessage): Credentials {
      const credentials = this.credentialsOf(req);
      if (credentials.token) return credentials;
      credentials.courierSession = courierSessionFromCookie(header(req.headers, 'cookie'));
      return credentials;
    },
    /** Whether the request carries the courier app's CSRF header (non-empty). */
    hasCourierCsrfHeader: (req: IncomingMessage) => !!header(req.headers, COURIER_CSRF_HEADER)?.trim(),
    /** Whether the request carries the CSRF header (non-empty). */
    hasCsrfHeader: (req: IncomingMessage) => !!header(req.headers, CSRF_HEADER)?.trim(),
    /** Whether the browser reached us over TLS (directly or through a trusted proxy): the cookie is Secure then. */
    overTls: (req: IncomingMessage) => cameOverTls(req, options.trustProxy),
    /**
     * A graphql-ws connection's credentials, from connection_init's payload (`authorization`,
     * `apiKey` or `x-api-key`, `testMode` or `x-test-mode`). Names are case-insensitive, as header
     * names are: GraphiQL and most clients send `X-API-Key` or `Authorization`.
     */
    credentialsFromParams(params: unknown, address: string): Credentials {
      const named = new Map(Object.entries(params && typeof params === 'object' ? params : {}).map(([name, value]) => [name.toLowerCase(), value]));
      const str = (name: string) => {
        const value = named.get(name);
        return typeof value === 'string' ? value : undefined;
      };
      return Object.assign(tokenOfHeaders(str('authorization'), str('apikey') ?? str('x-api-key')), { testMode: str('testmode') ?? str('x-test-mode'), address });
    },
  };
}
