import type { IdempotencyScope } from '../src/domain/idempotency.js';
import type { GraphQLContext } from './context.js';

/** The description of every mutation's `idempotencyKey` argument. */
export const IDEMPOTENCY_KEY_DESCRIPTION =
  'Makes a retry safe (as the REST Idempotency-Key header, sharing its records): the same key with the same arguments answers ' +
  'what the first call answered without running it again; other arguments: IDEMPOTENCY_KEY_REUSED; while the first call runs: ' +
  'IDEMPOTENCY_KEY_IN_FLIGHT. Printable ASCII, up to 255 characters, kept 24 h.';

/** Runs a mutation's domain call under its optional idempotency key (see src/domain/idempotency.ts). */
export async function idempotently<T>(
  ctx: GraphQLContext,
  options: { scope: IdempotencyScope; key: string | null | undefined; request: unknown; execute: () => Promise<T>; keyRequired?: boolean },
): Promise<T> {
  const { key, ...rest } = options;
  return (await ctx.services.idempotency.runIdempotent(Object.assign({ key: key ?? undefined }, rest))).value;
}
