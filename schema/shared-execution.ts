import { createSourceEventStream, execute, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { isAsyncIterable, mapAsyncIterator, type Plugin } from 'graphql-yoga';
import type { GraphQLContext } from './context.js';

type Result = ExecutionResult | Promise<ExecutionResult>;

/**
 * Anonymous subscriptions share the execution of each event: the domain hands every watcher of an
 * order the same update object, and anonymous callers have no identity a resolver could read, so
 * subscribers with the same document and variables get the same result — executed once per event,
 * not once per subscriber (10,000 tracking subscribers on 2,000 orders: 5 times fewer executions).
 * Authenticated subscriptions keep their own execution (their resolvers read the caller).
 */
export function useSharedAnonymousEvents(): Plugin {
  const byEvent = new WeakMap<object, Map<string, Result>>();

  function sharedExecute(args: ExecutionArgs, key: string, event: unknown): Result {
    if (event === null || typeof event !== 'object') return execute(Object.assign({}, args, { rootValue: event }));
    let results = byEvent.get(event);
    if (!results) byEvent.set(event, (results = new Map()));
    let result = results.get(key);
    if (!result) results.set(key, (result = execute(Object.assign({}, args, { rootValue: event }))));
    return result;
  }

  return {
    onSubscribe({ args, setSubscribeFn }) {
      if ((args.contextValue as unknown as GraphQLContext).caller?.kind !== 'anonymous') return;
      setSubscribeFn(async (subscribeArgs) => {
        const stream = await createSourceEventStream(subscribeArgs);
        if (!isAsyncIterable(stream)) return stream;
        const key = `${subscribeArgs.operationName ?? ''}\n${JSON.stringify(subscribeArgs.variableValues ?? {})}\n${subscribeArgs.document.loc?.source.body ?? ''}`;
        return mapAsyncIterator(stream, (event: unknown) => sharedExecute(subscribeArgs, key, event));
      });
    },
  };
}
