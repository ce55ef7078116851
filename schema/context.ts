import type { Edge } from '../src/edge/edge.js';
import type { CourierPrincipal, MerchantPrincipal } from '../src/domain/auth.js';
import type { OperatorPrincipal } from '../src/domain/operators/service.js';
import type { BudgetDecision as RateLimitDecision, Caller, Credentials } from '../src/domain/front-door.js';

/** The browser half of a GraphQL request over HTTP (the console): its CSRF header and session cookie. */
export interface BrowserSession {
  /** The request carried the CSRF header (X-GraphQL-CSRF): a page of another site cannot have sent it. */
  csrfChecked: boolean;
  /** The session cookie the request presented (valid or not). */
  sessionId: string | undefined;
  /** The cookie named a session that has ended: the request went on as anonymous. */
  sessionRejected: boolean;
  /** Sets the session cookie on this response, or with null clears it. */
  setSession(session: { sessionId: string; expiresAt: string } | null): void;
  /** The operator session cookie the request presented (only with X-Session-Scope: operator). */
  operatorSessionId: string | undefined;
  /** Sets (or with null clears) the operator session cookie, `exd_ops_session`. */
  setOperatorSession(session: { sessionId: string; expiresAt: string } | null): void;
}

/** What the front door decided for one operation (HTTP request or graphql-ws subscribe message). */
export interface DoorEntry {
  caller: Caller;
  decision: RateLimitDecision | null;
  credentials: Credentials;
  /** The operation came over a graphql-ws socket (which holds its own socket slot). */
  overSocket?: boolean;
  /** GraphQL over HTTP from a node request: cookies and the CSRF header (absent over sockets). */
  browser?: BrowserSession;
}

export interface GraphQLContext {
  services: Edge['services'];
  config: Edge['config'];
  caller: Caller;
  /** Kept so an open subscription can be ended when these credentials stop admitting the caller. */
  credentials: Credentials;
  merchant: MerchantPrincipal | null;
  courier: CourierPrincipal | null;
  /** The admin token (automation): every admin field. */
  isAdmin: boolean;
  /** A signed-in operator (issue #29): the admin fields its role allows. */
  operator: OperatorPrincipal | null;
  rateLimit: RateLimitDecision | null;
  overSocket: boolean;
  browser: BrowserSession | null;
}

export function contextFor(edge: Edge, entry: DoorEntry): GraphQLContext {
  const { caller } = entry;
  return {
    services: edge.services,
    config: edge.config,
    caller,
    credentials: entry.credentials,
    merchant: caller.kind === 'merchant' ? caller.merchant : null,
    courier: caller.kind === 'courier' ? caller.courier : null,
    isAdmin: caller.kind === 'admin',
    operator: caller.kind === 'operator' ? caller.operator : null,
    rateLimit: entry.decision,
    overSocket: entry.overSocket === true,
    browser: entry.browser ?? null,
  };
}
