import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { FrontDoor } from '../src/domain/front-door.js';
import type { GraphQLContext } from './context.js';

/**
 * Authenticated subscriptions (over HTTP or graphql-ws) last only while their credentials admit
 * the caller: a revoked or rotated key, a suspended merchant or a disabled courier ends them with
 * that error within the front door's recheck interval.
 */
export function useSessionGuard(frontDoor: FrontDoor): Plugin {
  return {
    onSubscribe({ args }) {
      const context = args.contextValue as unknown as GraphQLContext;
      if (context.caller.kind === 'anonymous') return;
      return {
        onSubscribeResult({ result, setResult }) {
          if (isAsyncIterable(result)) setResult(frontDoor.holdStream({ credentials: context.credentials, stream: result }));
        },
      };
    },
  };
}
