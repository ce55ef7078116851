import type { MerchantPrincipal } from '../auth.js';
import { AppError } from '../errors.js';
import type { MemberRole } from '../types.js';

/**
 * What a role may do (issue #19):
 * - `read`: see orders, batches, webhooks and their deliveries, the team, the profile, and quote
 *   (every role; quoting books nothing);
 * - `dispatch`: run deliveries: create, cancel, confirm, reset a delivery PIN, consolidate, advance
 *   in the sandbox, redeliver webhooks (dispatcher and owner);
 * - `manage`: API keys, the signing secret, webhook endpoints, settings and members (owner only).
 * API keys carry no member and act as owner.
 */
export type Permission = 'read' | 'dispatch' | 'manage';

const GRANTS: Record<MemberRole, ReadonlySet<Permission>> = {
  owner: new Set(['read', 'dispatch', 'manage']),
  dispatcher: new Set(['read', 'dispatch']),
  viewer: new Set(['read']),
};

export function roleOf(principal: MerchantPrincipal): MemberRole {
  return principal.member?.role ?? 'owner';
}

export function isPermitted(principal: MerchantPrincipal, permission: Permission): boolean {
  return GRANTS[roleOf(principal)].has(permission);
}

/** Throws 403 FORBIDDEN_ROLE when the caller's role does not grant the permission. */
export function assertPermitted(principal: MerchantPrincipal, permission: Permission): void {
  if (isPermitted(principal, permission)) return;
  const role = roleOf(principal);
  const needs = permission === 'manage' ? 'an owner' : 'a dispatcher or an owner';
  throw new AppError('FORBIDDEN_ROLE', `A ${role} cannot do this: it needs ${needs}`, { details: { role, needs: permission } });
}
