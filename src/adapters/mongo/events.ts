import { setTimeout as sleep } from 'node:timers/promises';
import { MongoServerError, type ClientSession, type Collection } from 'mongodb';
import type { Mode } from '../../domain/types.js';
import type { EventFeedRepository, FeedEvent, NewFeedEvent } from '../../ports/store.js';
import type { FeedEventDoc, MongoDatabase } from './database.js';
import { isTransientTransactionError } from './failures.js';

/** Events given positions per sequencing transaction. */
const SEQUENCE_BATCH = 500;
/** Waiting events looked at per prune call to find the feeds to sequence before pruning. */
const PRUNE_SCAN = 5000;
/** Rounds a reader tries to sequence while other readers of the merchant's feed do the same. */
const SEQUENCE_ROUNDS = 20;

const positionsId = (merchantId: string, mode: Mode) => JSON.stringify([merchantId, mode]);

/** Writes a feed event, without a position yet, inside the caller's transaction (the change's). */
export async function writeFeedEvent(feed: Collection<FeedEventDoc>, events: NewFeedEvent | NewFeedEvent[] | undefined, session: ClientSession): Promise<void> {
  // One at a time, in the order given (the status change before its stops' events).
  for (const { id, ...rest } of events === undefined ? [] : Array.isArray(events) ? events : [events]) {
    await feed.insertOne(Object.assign({ _id: id, position: null }, rest), { session });
  }
}

const toEvent = ({ _id, position, ...rest }: FeedEventDoc): FeedEvent => Object.assign({ id: _id, position: position ?? 0 }, rest);

/**
 * One order's events keep their sequence order within a batch, whatever the nodes' clocks said:
 * each order's slots (by time) are refilled with its events by sequence.
 */
function inSequence(docs: FeedEventDoc[]): FeedEventDoc[] {
  const byOrder = new Map<string, FeedEventDoc[]>();
  for (const d of docs) if (d.orderId) byOrder.set(d.orderId, [...(byOrder.get(d.orderId) ?? []), d]);
  const queues = new Map([...byOrder].map(([id, list]) => [id, [...list].sort((a, b) => (a.sequence ?? 0) - (b.sequence ?? 0))]));
  return docs.map((d) => (d.orderId ? queues.get(d.orderId)!.shift()! : d));
}

/** Thrown inside a sequencing transaction when another reader moved the counter first. */
class CounterMoved extends Error {}

/**
 * MongoDB: changes commit concurrently, so a change does not take a position in its own
 * transaction (one counter per merchant would make every two concurrent changes of a merchant
 * conflict). Events are written without one; a reader first gives the waiting events positions,
 * in one transaction that moves the merchant's counter with a compare-and-set, so sequencers run
 * one at a time and an event committed later always gets a higher position than any given out.
 */
export function createMongoEventFeedRepository(database: MongoDatabase): EventFeedRepository {
  const { eventFeed, eventFeedPositions } = database.collections;

  async function sequenceOnce(merchantId: string, mode: Mode): Promise<void> {
    const _id = positionsId(merchantId, mode);
    await database.inTransaction(async (session) => {
      const counter = await eventFeedPositions.findOne({ _id }, { session });
      const last = counter?.last ?? 0;
      const waiting = await eventFeed.find({ merchantId, mode, position: null }, { session }).sort({ at: 1, _id: 1 }).limit(SEQUENCE_BATCH).toArray();
      if (waiting.length === 0) return;
      const ordered = inSequence(waiting);
      await eventFeed.bulkWrite(
        ordered.map((d, i) => ({ updateOne: { filter: { _id: d._id, position: null }, update: { $set: { position: last + 1 + i } } } })),
        { session },
      );
      if (!counter) {
        await eventFeedPositions.insertOne({ _id, last: ordered.length }, { session });
      } else if ((await eventFeedPositions.updateOne({ _id, last }, { $set: { last: last + ordered.length } }, { session })).matchedCount === 0) {
        throw new CounterMoved();
      }
    });
  }

  async function sequence(merchantId: string, mode: Mode): Promise<void> {
    for (let round = 0; round < SEQUENCE_ROUNDS; round++) {
      if (!(await eventFeed.findOne({ merchantId, mode, position: null }, { projection: { _id: 1 } }))) return;
      try {
        await sequenceOnce(merchantId, mode);
      } catch (error) {
        // Another reader sequenced first: its counter move conflicts with ours (WriteConflict 112, a
        // duplicate first counter 11000, or our compare-and-set missing).
        const raced = error instanceof CounterMoved || isTransientTransactionError(error) || (error instanceof MongoServerError && (error.code === 11000 || error.code === 112));
        if (!raced) throw error;
        await sleep(5 + Math.random() * 20);
      }
    }
    // Still racing: the page shows what is sequenced; the rest comes on the next read.
  }

  return {
    async list({ merchantId, mode, after, limit }) {
      if (limit <= 0) return [];
      await sequence(merchantId, mode);
      const docs = await eventFeed.find({ merchantId, mode, position: { $gt: after } }).sort({ position: 1 }).limit(limit).toArray();
      return docs.map(toEvent);
    },
    async lastPosition({ merchantId, mode }) {
      return (await eventFeedPositions.findOne({ _id: positionsId(merchantId, mode) }))?.last ?? 0;
    },
    async prune({ createdBefore, limit }) {
      // Events still without a position get one first: a reader's cursor must see the gap they leave.
      const waiting = await eventFeed.find({ position: null, at: { $lt: createdBefore } }, { projection: { merchantId: 1, mode: 1 } }).limit(PRUNE_SCAN).toArray();
      for (const key of new Set(waiting.map((d) => positionsId(d.merchantId, d.mode)))) {
        const [merchantId, mode] = JSON.parse(key) as [string, Mode];
        await sequence(merchantId, mode);
      }
      const ids = (await eventFeed.find({ at: { $lt: createdBefore }, position: { $ne: null } }, { projection: { _id: 1 } }).limit(limit).toArray()).map((d) => d._id);
      if (ids.length === 0) return 0;
      return (await eventFeed.deleteMany({ _id: { $in: ids } })).deletedCount;
    },
  };
}
