import { AppError } from '../errors.js';
import type { OperatorRole } from '../types.js';

/**
 * What an operator's role may do (issue #29):
 * - `read`: every admin query (merchants, telemetry, couriers, orders, the audit log, operators);
 * - `notes`: add a note to a merchant, courier, order… (recorded in the audit log);
 * - `dispatch`: act on orders and couriers (create, disable, enable, rotate a courier's token…);
 * - `manage`: everything else (merchants, their keys and secrets, integrations, rate limits,
 *   users, team invitations, operators).
 * admin: all four; dispatcher: read, notes, dispatch; support: read and notes. The ADMIN_TOKEN
 * (automation) and the CLI hold every permission.
 */
export type OperatorPermission = 'read' | 'notes' | 'dispatch' | 'manage';
export const OPERATOR_PERMISSIONS = ['read', 'notes', 'dispatch', 'manage'] as const;

const GRANTS: Record<OperatorRole, ReadonlySet<OperatorPermission>> = {
  admin: new Set(OPERATOR_PERMISSIONS),
  dispatcher: new Set(['read', 'notes', 'dispatch']),
  support: new Set(['read', 'notes']),
};

export function operatorMay(role: OperatorRole, permission: OperatorPermission): boolean {
  return GRANTS[role].has(permission);
}

/** Throws 403 FORBIDDEN_ROLE when the role does not grant the permission. */
export function assertOperatorMay(role: OperatorRole, permission: OperatorPermission): void {
  if (operatorMay(role, permission)) return;
  throw new AppError('FORBIDDEN_ROLE', `A ${role} operator cannot do this: it needs the ${permission} permission`, { details: { role, needs: permission } });
}
