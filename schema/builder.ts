import SchemaBuilder from '@pothos/core';
import ErrorsPlugin from '@pothos/plugin-errors';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import { AppError } from '../src/domain/errors.js';
import { operatorMay, type OperatorPermission } from '../src/domain/operators/roles.js';
import type { GraphQLContext } from './context.js';

/** The one Pothos builder; it holds no types (each domain file declares its own). */
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  /** `admin`: the ADMIN_TOKEN; `operator`: a signed-in operator whose role grants the permission (schema/admin-access.ts). */
  AuthScopes: { merchant: boolean; courier: boolean; admin: boolean; operator: OperatorPermission };
  DefaultFieldNullability: false;
  Scalars: { DateTime: { Input: string; Output: string } };
}>({
  defaultFieldNullability: false,
  plugins: [ScopeAuthPlugin, ErrorsPlugin],
  scopeAuth: {
    // Without it Pothos checks scopes only when resolving, never when a subscription is opened.
    authorizeOnSubscribe: true,
    authScopes: (ctx) => ({
      merchant: ctx.merchant !== null,
      courier: ctx.courier !== null,
      admin: ctx.isAdmin,
      operator: (permission: OperatorPermission) => ctx.operator !== null && operatorMay(ctx.operator.operator.role, permission),
    }),
    unauthorizedError: (_parent, ctx) =>
      ctx.browser?.sessionRejected
        ? new AppError('INVALID_SESSION', 'Not signed in, or the session has ended: sign in again')
        : ctx.operator
          ? new AppError('FORBIDDEN_ROLE', `A ${ctx.operator.operator.role} operator cannot do this`, { details: { role: ctx.operator.operator.role } })
          : new AppError(
            ctx.merchant || ctx.courier || ctx.isAdmin ? 'FORBIDDEN' : 'INVALID_API_KEY',
            ctx.merchant || ctx.courier || ctx.isAdmin ? 'Not allowed for these credentials' : 'Credentials missing or invalid',
          ),
  },
  errors: { defaultTypes: [AppError] },
});
