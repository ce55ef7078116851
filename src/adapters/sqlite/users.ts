import type { UserRepository } from '../../ports/store.js';
import type { SqliteDatabase } from './database.js';

interface UserRow {
  id: string;
  rut: string;
  name: string | null;
  phone: string | null;
  created_at: string;
}

export function createSqliteUserRepository(db: SqliteDatabase): UserRepository {
  const insert = db.prepare(
    'INSERT INTO users (id, rut, name, phone, created_at) VALUES (@id, @rut, @name, @phone, @createdAt) ON CONFLICT (rut) DO NOTHING',
  );
  const byRut = db.prepare<[string], UserRow>('SELECT * FROM users WHERE rut = ?');
  return {
    async insert(user) {
      return insert.run(user).changes === 1;
    },
    async findByRut(rut) {
      const r = byRut.get(rut);
      return r ? { id: r.id, rut: r.rut, name: r.name, phone: r.phone, createdAt: r.created_at } : null;
    },
  };
}
