import { MongoClient } from 'mongodb';

/** What one run of the probe saw: trials in which a committed insert was missing afterwards. */
export interface LostCommitsProbe {
  trials: number;
  transactionsPerTrial: number;
  /** Transactions whose commit the server acknowledged. */
  committed: number;
  /** Trials with fewer documents afterwards than acknowledged commits. */
  trialsWithLoss: number;
  /** Acknowledged inserts missing afterwards (over all trials). */
  lostInserts: number;
}

/**
 * Does the server keep every committed insert? `transactionsPerTrial` concurrent transactions each
 * insert one document of its own (distinct `_id`s) into one collection and commit, `trials` times
 * (each in a fresh collection of `dbName`); then the documents are counted. MongoDB keeps every one
 * (inserts of distinct `_id`s never conflict; a conflicting commit aborts with a
 * TransientTransactionError, it does not succeed). jongodb does not: its commit merges the
 * transaction's changes into a copy of every collection taken before it locks the store, then
 * replaces the collection with it, so a commit that lands meanwhile is overwritten.
 */
export async function probeLostCommits(options: {
  url: string;
  dbName: string;
  /** At most this many trials… */
  trials?: number;
  transactionsPerTrial?: number;
  /** …or fewer: stop after the first trial with a loss. */
  stopAtFirstLoss?: boolean;
}): Promise<LostCommitsProbe> {
  const maxTrials = options.trials ?? 20;
  const perTrial = options.transactionsPerTrial ?? 10;
  const client = new MongoClient(options.url);
  await client.connect();
  const result: LostCommitsProbe = { trials: 0, transactionsPerTrial: perTrial, committed: 0, trialsWithLoss: 0, lostInserts: 0 };
  try {
    const db = client.db(options.dbName);
    // Some data beside the probe's, as an app's database has: jongodb copies every collection at
    // each commit, and the longer that takes the wider its window.
    await db.collection<{ _id: number; text: string }>('probe_ballast').insertMany(Array.from({ length: 2000 }, (_, i) => ({ _id: i, text: 'x'.repeat(100) })));
    for (let trial = 0; trial < maxTrials && !(options.stopAtFirstLoss && result.trialsWithLoss > 0); trial++) {
      result.trials++;
      const collection = db.collection<{ _id: string }>(`probe_${trial}`);
      // Outside any transaction first: a collection is not created inside one.
      await collection.insertOne({ _id: 'seed' });
      const outcomes = await Promise.all(
        Array.from({ length: perTrial }, async (_, i) => {
          const session = client.startSession();
          try {
            session.startTransaction({ readConcern: { level: 'snapshot' }, readPreference: 'primary' });
            await collection.insertOne({ _id: `doc-${i}` }, { session });
            await session.commitTransaction();
            return true;
          } catch {
            if (session.inTransaction()) await session.abortTransaction().catch(() => {});
            return false; // not acknowledged: not counted
          } finally {
            await session.endSession();
          }
        }),
      );
      const committed = outcomes.filter(Boolean).length;
      const stored = await collection.countDocuments({ _id: { $ne: 'seed' } });
      result.committed += committed;
      if (stored < committed) {
        result.trialsWithLoss++;
        result.lostInserts += committed - stored;
      }
    }
    return result;
  } finally {
    // Left empty: jongodb has no dropDatabase, and it copies every collection at each commit.
    const db = client.db(options.dbName);
    await db.dropDatabase().catch(async () => {
      for (const name of ['probe_ballast', ...Array.from({ length: result.trials }, (_, i) => `probe_${i}`)]) await db.collection(name).deleteMany({});
    });
    await client.close();
  }
}

export const describeProbe = (p: LostCommitsProbe) =>
  `${p.lostInserts} of ${p.committed} committed inserts missing afterwards, in ${p.trialsWithLoss} of ${p.trials} trials of ` +
  `${p.transactionsPerTrial} concurrent transactions each inserting one document of its own into one collection`;
