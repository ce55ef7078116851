import type { DocumentNode, GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';

/**
 * Yoga's parse cache, bounded by memory as well as entries. Yoga keeps 1,024 parsed documents by
 * default, whatever their size: an AST takes about 80 bytes of heap per byte of its text, so
 * 1,024 distinct large documents (anyone can send them) held hundreds of MB. Each document is
 * charged by its text here; the validation cache is keyed by these documents and goes with them.
 */
export const PARSE_CACHE_LIMITS = { entries: 1024, bytes: 32 * 1024 * 1024 };
const HEAP_PER_SOURCE_BYTE = 80;

export function createParseCache(limits = PARSE_CACHE_LIMITS) {
  const bounded = <T extends object>() =>
    new LRUCache<string, T>({ max: limits.entries, maxSize: limits.bytes, sizeCalculation: (_value, source) => Math.max(1, source.length * HEAP_PER_SOURCE_BYTE) });
  // Validation results are kept by useValidationCache instead of Yoga's.
  return { documentCache: bounded<DocumentNode>(), errorCache: bounded<object>(), validationCache: false };
}

/**
 * Validation results by document: they go when the parse cache lets the document go. Yoga's own
 * cache also keys them by the names of the rules, joined anew on every request (a hundredth of a
 * quote query's CPU); here every request is validated with the same rules (the schema's and
 * graphql-armor's, fixed at start).
 */
export function useValidationCache(): Plugin {
  const results = new WeakMap<DocumentNode, readonly GraphQLError[]>();
  return {
    onValidate({ params: { documentAST }, setResult }) {
      const cached = results.get(documentAST);
      if (cached) return setResult(cached);
      return ({ result }) => void results.set(documentAST, result as readonly GraphQLError[]);
    },
  };
}
