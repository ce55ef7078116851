import { getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../src/logger.js';

type Compiled = Pick<CompiledQuery, 'query' | 'stringify'>;

/**
 * Runs queries through graphql-jit once a document comes back (a seventh of a quote query's CPU,
 * bench/quote), and graphql-js everywhere else:
 * - a document's first execution is interpreted: one-off documents do not buy a compilation;
 * - mutations and subscriptions are always interpreted (nothing is ever executed twice for them);
 * - a compiled answer that carries errors is dropped and the query interpreted again, because
 *   graphql-jit words errors differently (variable errors by field, no locations, 200 instead of
 *   400). Queries only read, so the second run changes nothing but the wording.
 */
export function useCompiledQueries(logger: Logger): Plugin {
  // By document (Yoga's parse cache hands back the same object for the same text), then operation.
  const byDocument = new WeakMap<DocumentNode, Map<string, Compiled | 'seen' | 'uncompilable'>>();

  function compiledFor(args: { schema: Parameters<typeof compileQuery>[0]; document: DocumentNode; operationName?: string | null | undefined }): Compiled | null {
    let byOperation = byDocument.get(args.document);
    if (!byOperation) byDocument.set(args.document, (byOperation = new Map()));
    const operation = args.operationName ?? '';
    const entry = byOperation.get(operation);
    if (typeof entry === 'object') return entry;
    if (entry === undefined) {
      byOperation.set(operation, 'seen');
      return null;
    }
    if (entry === 'uncompilable') return null;
    const result = compileQuery(args.schema, args.document, args.operationName ?? undefined);
    if (!isCompiledQuery(result)) {
      logger.warn({ errors: result.errors?.map((e) => e.message) }, 'graphql-jit could not compile a query; it stays interpreted');
      byOperation.set(operation, 'uncompilable');
      return null;
    }
    const fresh = { query: result.query, stringify: result.stringify };
    byOperation.set(operation, fresh);
    return fresh;
  }

  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      if (getOperationAST(args.document, args.operationName)?.operation !== 'query') return;
      const compiledQuery = compiledFor(args);
      if (!compiledQuery) return;
      setExecuteFn(async (executionArgs) => {
        const result = (await compiledQuery.query(executionArgs.rootValue, executionArgs.contextValue, executionArgs.variableValues)) as ExecutionResult;
        if (result.errors?.length) return executeFn(executionArgs);
        // Yoga writes the answer with this serializer, compiled for the query's shape.
        return Object.assign(result, { stringify: compiledQuery.stringify });
      });
    },
  };
}
