import { MongoClient } from 'mongodb';
import { afterAll, describe, it } from 'vitest';
import { createMongoStore } from '../../src/adapters/mongo/store.js';
import type { Store } from '../../src/ports/store.js';
import { mongoForTestFile, testStoreTimeoutMs, uniqueDbName, type MongoServer } from '../helpers/mongo.js';

type DescribeContract = (name: string, makeStore: () => Promise<Store>, options: { skip?: Readonly<Record<string, string>> }) => void;

/**
 * Runs a store contract suite against MongoDB: MONGODB_URL when set (every case runs), else the
 * jongodb test server, where the cases it cannot run are skipped by name with their reason, and the
 * list is printed. Each case gets a fresh database.
 */
export async function runMongoContract(options: {
  title: string;
  dbPrefix: string;
  describeContract: DescribeContract;
  /** Case name → why jongodb cannot run it (never applied against a real MongoDB). */
  jongodbUnsupported: Record<string, string>;
}): Promise<void> {
  const { mongo, skipReason } = await mongoForTestFile();
  if (!mongo) {
    describe(`${options.title}: mongodb`, () => {
      it.skip(`skipped: ${skipReason}`, () => {});
    });
    return;
  }
  const fileDb = uniqueDbName(options.dbPrefix);
  const dbNames: string[] = [];
  const unsupported = options.jongodbUnsupported;
  if (mongo.kind === 'jongodb' && Object.keys(unsupported).length > 0) {
    const list = Object.entries(unsupported).map(([name, reason]) => `  - ${name}: ${reason}`);
    console.warn(`${options.title} on jongodb: skipping cases it cannot run (they run against a real MONGODB_URL):\n${list.join('\n')}`);
  }
  afterAll(async () => {
    await dropDatabases(mongo.url, dbNames);
    await mongo.stop();
  });
  options.describeContract(
    `mongodb (${mongo.kind})`,
    async () => {
      const dbName = `${fileDb}_${dbNames.length + 1}`;
      dbNames.push(dbName);
      return createContractStore(mongo, dbName);
    },
    { skip: mongo.kind === 'jongodb' ? unsupported : {} },
  );
}

/** A store of the contract suites: on jongodb with the test server's deadline (test/helpers/mongo.ts). */
export function createContractStore(mongo: Pick<MongoServer, 'url' | 'kind'>, dbName: string): Promise<Store> {
  const operationTimeoutMs = testStoreTimeoutMs(mongo.kind);
  return createMongoStore({ url: mongo.url, dbName, ...(operationTimeoutMs !== undefined && { operationTimeoutMs }) });
}

/** Best effort: a real server drops the test databases; jongodb has no dropDatabase (memory only). */
async function dropDatabases(url: string, names: string[]): Promise<void> {
  const client = new MongoClient(url);
  try {
    await client.connect();
    for (const name of names) await client.db(name).dropDatabase();
  } catch {
    // nothing to clean up that outlives the server
  } finally {
    await client.close();
  }
}
