import { AppError } from './errors.js';

/** Nesting allowed in a JSON body (the body itself is level 1; `items` and its elements count). */
export const MAX_JSON_DEPTH = 8;

/**
 * Whether a parsed JSON value nests objects or arrays deeper than `max` levels. The walk stops
 * at the first container past the limit, so it never recurses more than `max + 1` frames.
 */
export function exceedsJsonDepth(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (max <= 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (exceedsJsonDepth(item, max - 1)) return true;
    return false;
  }
  for (const key in value) {
    if (exceedsJsonDepth((value as Record<string, unknown>)[key], max - 1)) return true;
  }
  return false;
}

/** Throws 400 VALIDATION_ERROR when `value` nests deeper than MAX_JSON_DEPTH (REST bodies, GraphQL variables, socket messages). */
export function assertJsonDepth(value: unknown, what = 'Request body'): void {
  if (exceedsJsonDepth(value)) throw new AppError('VALIDATION_ERROR', `${what} nests deeper than ${MAX_JSON_DEPTH} levels`);
}
