import { AppError } from '../src/domain/errors.js';
import type { OperatorPermission } from '../src/domain/operators/roles.js';
import type { AuditActor } from '../src/domain/types.js';
import type { GraphQLContext } from './context.js';

/**
 * Every admin field (issue #29) and the operator permission it needs: the ADMIN_TOKEN reaches
 * them all; a signed-in operator those its role grants (src/domain/operators/roles.ts). A field
 * without an entry here cannot be declared (adminScopes throws at schema build), and
 * test/graphql/operator-roles.test.ts fails for an `admin…` field of the schema missing here.
 */
export const ADMIN_FIELD_PERMISSIONS = {
  // Queries: every role reads.
  adminIntegrationTelemetry: 'read',
  adminMerchants: 'read',
  adminMerchant: 'read',
  adminAuditLog: 'read',
  adminOperators: 'read',
  adminOrders: 'read',
  adminOrder: 'read',
  adminCouriers: 'read',
  adminFailingWebhookEndpoints: 'read',
  adminCodClaims: 'read',
  adminNow: 'read',
  adminComunas: 'read',
  adminCourierNames: 'read',
  // Subscriptions: every role watches.
  adminFleet: 'read',
  // Notes: every role.
  adminAddNote: 'notes',
  // Couriers and orders: dispatchers and admins.
  adminCreateCourier: 'dispatch',
  adminInviteCourier: 'dispatch',
  adminRotateCourierToken: 'dispatch',
  adminDisableCourier: 'dispatch',
  adminEnableCourier: 'dispatch',
  adminSetCourierShiftEnd: 'dispatch',
  adminAssignOrder: 'dispatch',
  adminReleaseOrder: 'dispatch',
  adminReassignOrder: 'dispatch',
  adminCancelOrder: 'dispatch',
  // Merchants, their credentials and integrations, users, operators: admins only.
  adminCreateMerchant: 'manage',
  adminRotateApiKey: 'manage',
  adminRevokeApiKeys: 'manage',
  adminSetMerchantStatus: 'manage',
  adminSetIntegrationStatus: 'manage',
  adminSetMerchantRateLimit: 'manage',
  adminSetNotificationCountries: 'manage',
  adminRotateApiSecret: 'manage',
  adminCreateUser: 'manage',
  adminInviteMember: 'manage',
  adminInviteOperator: 'manage',
  adminResetOperatorPassword: 'manage',
  adminSetOperatorStatus: 'manage',
  adminSetOperatorRole: 'manage',
  // Money: admins only.
  adminRecordCodHandOver: 'manage',
  adminRecordCodPayout: 'manage',
  adminConfirmCodClaim: 'manage',
  adminRejectCodClaim: 'manage',
} as const satisfies Record<string, OperatorPermission>;

export type AdminField = keyof typeof ADMIN_FIELD_PERMISSIONS;

/** The auth scopes of an admin field: the admin token, or an operator whose role grants its permission. */
export function adminScopes(field: AdminField): { admin: true; operator: OperatorPermission } {
  const permission = ADMIN_FIELD_PERMISSIONS[field] as OperatorPermission | undefined;
  if (!permission) throw new Error(`admin field ${field} has no role rule in ADMIN_FIELD_PERMISSIONS`);
  return { admin: true, operator: permission };
}

/** Who is acting, for the audit log: the signed-in operator or the admin token. */
export function actorOf(ctx: GraphQLContext): AuditActor {
  if (ctx.operator) return { kind: 'operator', id: ctx.operator.operator.id, email: ctx.operator.operator.email };
  if (ctx.isAdmin) return { kind: 'admin_token' };
  // The scopes let nobody else through; this is a second lock.
  throw new AppError('FORBIDDEN', 'Not allowed for these credentials');
}

/** The admin operations as this caller, each recorded in the audit log. */
export const adminOf = (ctx: GraphQLContext) => ctx.services.auditedAdmin.as(actorOf(ctx));
