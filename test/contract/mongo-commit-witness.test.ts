import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mongoForTestFile, uniqueDbName } from '../helpers/mongo.js';
import { startCommitWitness, type CommitWitness } from '../helpers/mongo-commit-witness.js';

/**
 * The commit witness the MongoDB fault suite relies on to tell jongodb's lost commits from ours
 * (test/distributed/mongo-faults.test.ts): it must record a commit only when the server
 * acknowledged it, and see every delete. Run in front of jongodb, as the fault suite uses it.
 */
const { mongo, skipReason } = await mongoForTestFile();
const reason = !mongo ? skipReason : mongo.kind !== 'jongodb' ? 'the witness is used in front of the cluster tests’ own jongodb only' : '';

describe.skipIf(reason)(`Commit witness${reason ? ` (${reason})` : ''}`, () => {
  let witness: CommitWitness;
  let client: MongoClient;
  const dbName = uniqueDbName('exd_witness');

  beforeAll(async () => {
    witness = await startCommitWitness(mongo!.url);
    client = new MongoClient(witness.url);
    await client.connect();
    await client.db(dbName).collection('items').insertOne({ _id: 'seed' } as never);
  });
  afterAll(async () => {
    await client?.close();
    await witness?.close();
    await mongo?.stop();
  });

  it('a replica-set client stays on the proxy: the server advertises its address', async () => {
    const hello = await client.db('admin').command({ hello: 1 });
    expect(hello.hosts).toEqual([new URL(witness.url).host]);
  });

  it('records when the server acknowledged the commit of a transaction that inserted a document, and nothing for an aborted one or a plain insert', async () => {
    const items = client.db(dbName).collection<{ _id: string }>('items');
    const inTransaction = async (id: string, end: 'commit' | 'abort') => {
      const session = client.startSession();
      try {
        session.startTransaction({ readConcern: { level: 'snapshot' } });
        await items.insertOne({ _id: id }, { session });
        await (end === 'commit' ? session.commitTransaction() : session.abortTransaction());
      } finally {
        await session.endSession();
      }
    };
    const before = Date.now();
    await inTransaction('committed', 'commit');
    const after = Date.now();
    await inTransaction('aborted', 'abort');
    await items.insertOne({ _id: 'plain' });
    const at = witness.commitAcknowledgedAt('items', 'committed');
    expect(at).not.toBeNull();
    expect(at!).toBeGreaterThanOrEqual(before);
    expect(at!).toBeLessThanOrEqual(after);
    expect(witness.commitAcknowledgedAt('items', 'aborted')).toBeNull();
    expect(witness.commitAcknowledgedAt('items', 'plain')).toBeNull();
    expect(witness.commitAcknowledgedAt('other', 'committed')).toBeNull();
  });

  it('records nothing for a commit the server refused', async () => {
    const items = client.db(dbName).collection<{ _id: string }>('items');
    const [first, second] = [client.startSession(), client.startSession()];
    try {
      for (const session of [first, second]) session.startTransaction({ readConcern: { level: 'snapshot' } });
      await items.insertOne({ _id: 'contested' }, { session: first });
      await items.insertOne({ _id: 'contested' }, { session: second });
      await items.insertOne({ _id: 'second-only' }, { session: second });
      await first.commitTransaction();
      // Both inserted one _id: the second commit conflicts (jongodb: code 112 at commit).
      await expect(second.commitTransaction()).rejects.toThrow();
    } finally {
      await first.endSession();
      await second.endSession();
    }
    expect(witness.commitAcknowledgedAt('items', 'contested')).not.toBeNull();
    expect(await items.findOne({ _id: 'second-only' })).toBeNull();
    expect(witness.commitAcknowledgedAt('items', 'second-only')).toBeNull();
  });

  it('counts the commands deleting from a collection', async () => {
    const db = client.db(dbName);
    expect(witness.removalsFrom('items')).toBe(0);
    await db.collection<{ _id: string }>('items').deleteOne({ _id: 'nothing' });
    await db.collection<{ _id: string }>('items').deleteMany({ _id: 'nothing' });
    await db.command({ findAndModify: 'items', query: { _id: 'nothing' }, remove: true }); // jongodb refuses findOneAndDelete's `new: false`
    await db.collection<{ _id: string; n?: number }>('items').findOneAndUpdate({ _id: 'nothing' }, { $set: { n: 1 } });
    expect(witness.removalsFrom('items')).toBe(3);
    expect(witness.removalsFrom('orders')).toBe(0);
  });
});
