import type { Store } from '../../ports/store.js';

export async function createMongoStore(_options: { url: string; dbName: string }): Promise<Store> {
  throw new Error('MongoDB store: being written');
}
