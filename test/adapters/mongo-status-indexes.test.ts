import { MongoClient } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { statusIn, STATUS_SET_INDEXES } from '../../src/adapters/mongo/database.js';
import { mongoForTestFile, uniqueDbName } from '../helpers/mongo.js';
import { createContractStore } from '../contract/mongo-suite.js';

const { mongo, skipReason } = await mongoForTestFile();

describe.skipIf(!mongo)(`MongoDB's status-set indexes follow the domain's sets${mongo ? '' : ` (skipped: ${skipReason})`}`, () => {
  it("are built with the sets' filters, and an index that drifted stops the opening with what to do", { timeout: 120_000 }, async () => {
    const dbName = uniqueDbName('status_indexes');
    await (await createContractStore(mongo!, dbName)).close();
    const client = new MongoClient(mongo!.url);
    try {
      await client.connect();
      const orders = client.db(dbName).collection('orders');
      const indexes = await orders.listIndexes().toArray();
      for (const [name, set] of Object.entries(STATUS_SET_INDEXES)) {
        const index = indexes.find((i) => i.name === name);
        expect(index, name).toBeDefined();
        // jongodb may not report the filter; a real MongoDB does.
        if (index!.partialFilterExpression !== undefined) expect(index!.partialFilterExpression, name).toEqual(statusIn(set));
      }
      // A store whose orders_late_eta an older version built with another set (jongodb cannot drop an index: a fresh database).
      const drifted = uniqueDbName('status_indexes_drifted');
      await client.db(drifted).collection('orders').createIndex({ estimatedDeliveryAt: 1 }, { name: 'orders_late_eta', partialFilterExpression: { status: { $in: ['new'] } } });
      await expect(createContractStore(mongo!, drifted)).rejects.toThrow(/orders_late_eta does not filter on the domain's 'active' statuses/);
    } finally {
      await client.close();
    }
  });
});
