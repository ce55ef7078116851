import type { Edge } from '../src/edge/edge.js';
import type { CourierPrincipal, MerchantPrincipal } from '../src/domain/auth.js';
import type { BudgetDecision as RateLimitDecision, Caller, Credentials } from '../src/domain/front-door.js';

/** What the front door decided for one operation (HTTP request or graphql-ws subscribe message). */
export interface DoorEntry {
  caller: Caller;
  decision: RateLimitDecision | null;
  credentials: Credentials;
  /** The operation came over a graphql-ws socket (which holds its own socket slot). */
  overSocket?: boolean;
}

export interface GraphQLContext {
  services: Edge['services'];
  config: Edge['config'];
  caller: Caller;
  /** Kept so an open subscription can be ended when these credentials stop admitting the caller. */
  credentials: Credentials;
  merchant: MerchantPrincipal | null;
  courier: CourierPrincipal | null;
  isAdmin: boolean;
  rateLimit: RateLimitDecision | null;
  overSocket: boolean;
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
    rateLimit: entry.decision,
    overSocket: entry.overSocket === true,
  };
}
