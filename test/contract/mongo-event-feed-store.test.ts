import { describeEventFeedStoreContract } from './event-feed-store.contract.js';
import { runMongoContract } from './mongo-suite.js';

await runMongoContract({
  title: 'Event feed store contract',
  dbPrefix: 'exd_event_feed_contract',
  describeContract: describeEventFeedStoreContract,
  jongodbUnsupported: {
    '20 concurrent changes of one merchant get positions 1..20 without gaps or duplicates, each order in sequence':
      'jongodb does not detect write conflicts between concurrent transactions that update one document (20 concurrent ' +
      'transactions each doing findOneAndUpdate {$inc: {n: 1}} all committed and left n=1), so two readers sequencing at once ' +
      'both commit their compare-and-set of the feed counter; MongoDB aborts one of them (WriteConflict) and it retries',
  },
});
