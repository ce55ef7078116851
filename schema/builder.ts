import SchemaBuilder from '@pothos/core';
import ErrorsPlugin from '@pothos/plugin-errors';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import { AppError } from '../src/domain/errors.js';
import type { GraphQLContext } from './context.js';

/** The one Pothos builder; it holds no types (each domain file declares its own). */
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  AuthScopes: { merchant: boolean; courier: boolean; admin: boolean };
  DefaultFieldNullability: false;
  Scalars: { DateTime: { Input: string; Output: string } };
}>({
  defaultFieldNullability: false,
  plugins: [ScopeAuthPlugin, ErrorsPlugin],
  scopeAuth: {
    // Without it Pothos checks scopes only when resolving, never when a subscription is opened.
    authorizeOnSubscribe: true,
    authScopes: (ctx) => ({ merchant: ctx.merchant !== null, courier: ctx.courier !== null, admin: ctx.isAdmin }),
    unauthorizedError: (_parent, ctx) =>
      ctx.browser?.sessionRejected
        ? new AppError('INVALID_SESSION', 'Not signed in, or the session has ended: sign in again')
        : new AppError(
            ctx.merchant || ctx.courier || ctx.isAdmin ? 'FORBIDDEN' : 'INVALID_API_KEY',
            ctx.merchant || ctx.courier || ctx.isAdmin ? 'Not allowed for these credentials' : 'Credentials missing or invalid',
          ),
  },
  errors: { defaultTypes: [AppError] },
});
