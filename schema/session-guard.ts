import { GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { EdgeDoor } from '../src/edge/door.js';
import type { GraphQLContext } from './context.js';

/** Releases `release` once, when the stream ends, fails or is returned. */
function releasingOnEnd<T>(stream: AsyncIterable<T>, release: () => void): AsyncIterableIterator<T> {
  const source = stream[Symbol.asyncIterator]();
  const done = async <R>(step: Promise<R>): Promise<R> => {
    try {
      return await step;
    } finally {
      release();
    }
  };
  return {
    next: async () => {
      try {
        const step = await source.next();
        if (step.done) release();
        return step;
      } catch (error) {
        release();
        throw error;
      }
    },
    return: (value?: unknown) => done(source.return ? source.return(value) : Promise.resolve({ done: true as const, value: undefined })),
    throw: (error?: unknown) => done(source.throw ? source.throw(error) : Promise.reject(error as Error)),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/**
 * Subscriptions last only as long as the front door allows:
 * - authenticated ones (over HTTP or graphql-ws) while their credentials admit the caller: a
 *   revoked or rotated key, a suspended merchant or a disabled courier ends them with that error
 *   within the recheck interval;
 * - an anonymous subscription over HTTP (server-sent events) holds one of its address's socket
 *   slots while it is open, like a socket does (over graphql-ws the socket holds it already).
 */
export function useSessionGuard(door: EdgeDoor): Plugin {
  return {
    onSubscribe({ args }) {
      const context = args.contextValue as unknown as GraphQLContext;
      if (context.caller.kind !== 'anonymous') {
        return {
          onSubscribeResult({ result, setResult }) {
            if (isAsyncIterable(result)) setResult(door.frontDoor.holdStream({ credentials: context.credentials, stream: result }));
          },
        };
      }
      if (context.overSocket) return;
      return {
        onSubscribeResult({ result, setResult }) {
          if (!isAsyncIterable(result)) return;
          const slot = door.sockets.takeAddressSlot(context.caller.address);
          if (slot) return setResult(releasingOnEnd(result, slot));
          void result[Symbol.asyncIterator]().return?.();
          setResult({
            errors: [new GraphQLError('Too many open connections from this address', { extensions: { code: 'RATE_LIMITED', http: { status: 429 } } })],
          });
        },
      };
    },
  };
}
