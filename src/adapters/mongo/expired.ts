import type { Collection, Filter } from 'mongodb';

/**
 * One bounded retention step over a collection of short-lived credentials (sessions, one-time
 * links and codes): at most `limit` documents past `before`, on `expireOn` (expiresAt as a Date, the
 * field the TTL indexes cover, so this only does on demand what the TTL monitor does in its own
 * time). Returns how many went.
 */
export async function pruneExpiredDocs<T extends { _id: string; expireOn: Date }>(collection: Collection<T>, options: { before: string; limit: number }): Promise<number> {
  if (options.limit <= 0) return 0;
  const expired = { expireOn: { $lt: new Date(options.before) } } as Filter<T>;
  const ids = (await collection.find(expired, { projection: { _id: 1 } }).limit(options.limit).toArray()).map((d) => d._id);
  return ids.length > 0 ? (await collection.deleteMany({ _id: { $in: ids } } as Filter<T>)).deletedCount : 0;
}
