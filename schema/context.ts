import type { Container } from '../src/container.js';
import type { CourierPrincipal, MerchantPrincipal } from '../src/domain/auth.js';
import type { RateLimitDecision } from '../src/ports/rate-limiter.js';

export interface GraphQLContext {
  container: Container;
  merchant: MerchantPrincipal | null;
  courier: CourierPrincipal | null;
  isAdmin: boolean;
  rateLimit: RateLimitDecision | null;
}
