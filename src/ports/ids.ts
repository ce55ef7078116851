import { monotonicFactory } from 'ulid';

export interface IdSource {
  /** A new unique, time-ordered id with the given prefix, e.g. `bk_01J…`. */
  next(prefix: string): string;
}

export function createUlidSource(): IdSource {
  const ulid = monotonicFactory();
  return { next: (prefix) => `${prefix}_${ulid()}` };
}
