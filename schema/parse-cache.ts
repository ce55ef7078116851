import type { DocumentNode } from 'graphql';
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
  return { documentCache: bounded<DocumentNode>(), errorCache: bounded<object>() };
}
