import type { RegisteredUser } from '../../domain/types.js';
import type { UserRepository } from '../../ports/store.js';
import type { MongoDatabase, UserDoc } from './database.js';

const toUser = (d: UserDoc): RegisteredUser => ({ id: d._id, rut: d.rut, name: d.name, phone: d.phone, createdAt: d.createdAt });

export function createMongoUserRepository(database: MongoDatabase): UserRepository {
  const { users } = database.collections;
  return {
    async insert(user) {
      // Insert-if-absent keyed on the unique RUT: an existing RUT matches and nothing is written.
      // MongoDB retries a racing upsert that hits the unique index, so concurrent inserts of one
      // RUT report exactly one `true`. A clashing `_id` still throws, as in the SQLite adapter.
      const result = await users.updateOne(
        { rut: user.rut },
        { $setOnInsert: { _id: user.id, name: user.name, phone: user.phone, createdAt: user.createdAt } },
        { upsert: true },
      );
      return result.upsertedCount === 1;
    },
    async findByRut(rut) {
      const doc = await users.findOne({ rut });
      return doc ? toUser(doc) : null;
    },
  };
}
