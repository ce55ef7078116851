import type { MongoDatabase } from './database.js';

/** The server's clock (hello's localTime), not this node's: every node compares leases against one time. */
export async function serverNow(database: MongoDatabase): Promise<Date> {
  const reply = await database.db.command({ hello: 1 });
  return reply.localTime instanceof Date ? reply.localTime : new Date();
}
