import { getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../src/logger.js';
import type { GraphQLContext } from './context.js';

type Compiled = Pick<CompiledQuery, 'query' | 'stringify'>;
type Entry = { state: 'seen' | 'uncompilable'; bytes: number } | { state: 'compiled'; compiled: Compiled; bytes: number };

/** How many documents the cache keeps, and roughly how much heap their compiled code may hold. */
export const COMPILED_CACHE_LIMITS = { entries: 500, bytes: 64 * 1024 * 1024 };
/**
 * Compiled code grows with the document: measured 3.4 MB of heap for a 4.6 kB document of 14
 * introspection aliases (about 740 bytes per byte of text), so a document is charged 1 kB per byte.
 */
const HEAP_PER_SOURCE_BYTE = 1024;

/**
 * Runs queries through graphql-jit once a document comes back (a seventh of a quote query's CPU,
 * bench/quote), and graphql-js everywhere else:
 * - only authenticated callers' documents are ever compiled, and only after one interpreted run
 *   without errors: anonymous, failing and one-off documents never buy a compilation;
 * - the cache is an LRU bounded by entries and by an estimate of the compiled code's heap;
 * - mutations and subscriptions are always interpreted (nothing is ever executed twice for them);
 * - a compiled answer that carries errors is dropped and the query interpreted again, because
 *   graphql-jit words errors differently (variable errors by field, no locations, 200 instead of
 *   400). Queries only read, so the second run changes nothing but the wording.
 */
export function useCompiledQueries(options: { logger: Logger; limits?: typeof COMPILED_CACHE_LIMITS; onCompile?: () => void }): Plugin {
  const { logger, limits = COMPILED_CACHE_LIMITS, onCompile } = options;
  // By document text and operation: Map iteration order is the LRU order (oldest first).
  const cache = new Map<string, Entry>();
  let bytes = 0;

  function remember(key: string, entry: Entry): void {
    const old = cache.get(key);
    if (old) bytes -= old.bytes;
    cache.delete(key);
    cache.set(key, entry);
    bytes += entry.bytes;
    for (const [oldest, evicted] of cache) {
      if (cache.size <= limits.entries && bytes <= limits.bytes) break;
      cache.delete(oldest);
      bytes -= evicted.bytes;
    }
  }

  function compile(key: string, args: { schema: Parameters<typeof compileQuery>[0]; document: DocumentNode; operationName?: string | null | undefined }, size: number): Compiled | null {
    const result = compileQuery(args.schema, args.document, args.operationName ?? undefined);
    onCompile?.();
    if (!isCompiledQuery(result)) {
      logger.warn({ errors: result.errors?.map((e) => e.message) }, 'graphql-jit could not compile a query; it stays interpreted');
      remember(key, { state: 'uncompilable', bytes: key.length });
      return null;
    }
    const compiled = { query: result.query, stringify: result.stringify };
    remember(key, { state: 'compiled', compiled, bytes: key.length + size * HEAP_PER_SOURCE_BYTE });
    return compiled;
  }

  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      if ((args.contextValue as unknown as GraphQLContext).caller?.kind === 'anonymous') return;
      if (getOperationAST(args.document, args.operationName)?.operation !== 'query') return;
      const source = args.document.loc?.source.body;
      if (source === undefined) return;
      const key = `${args.operationName ?? ''}\n${source}`;
      const entry = cache.get(key);
      if (entry === undefined) {
        // First sight: interpreted; remembered only if it ran without errors.
        setExecuteFn(async (executionArgs) => {
          const result = (await executeFn(executionArgs)) as ExecutionResult;
          if (!result.errors?.length) remember(key, { state: 'seen', bytes: key.length });
          return result;
        });
        return;
      }
      if (entry.state === 'uncompilable') return;
      const compiled = entry.state === 'compiled' ? entry.compiled : compile(key, args, source.length);
      if (entry.state === 'compiled') remember(key, entry);
      if (!compiled) return;
      setExecuteFn(async (executionArgs) => {
        const result = (await compiled.query(executionArgs.rootValue, executionArgs.contextValue, executionArgs.variableValues)) as ExecutionResult;
        if (result.errors?.length) return executeFn(executionArgs);
        // Yoga writes the answer with this serializer, compiled for the query's shape.
        return Object.assign(result, { stringify: compiled.stringify });
      });
    },
  };
}
