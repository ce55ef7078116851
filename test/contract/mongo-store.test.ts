import { runMongoContract } from './mongo-suite.js';
import { describeStoreContract } from './store.contract.js';

/**
 * Cases the jongodb test server cannot run, by name, with the reason. They are skipped on
 * jongodb only; against a real MongoDB (MONGODB_URL) every case runs.
 */
const NO_WRITE_CONFLICTS =
  'jongodb does not detect write conflicts between concurrent transactions: the last commit overwrites ' +
  'the documents it wrote (6 concurrent $inc transactions on one document leave n=2), so serialisation cannot hold';
const NO_MIN_MAX_OPERATORS =
  'jongodb does not implement the $max/$min update operators that telemetry.record uses ' +
  '(MongoServerError: unsupported update operator: $max), so no telemetry row can be written';
const JONGODB_UNSUPPORTED: Record<string, string> = {
  'merchants.rotateSecret: concurrent rotations leave exactly one current secret': NO_WRITE_CONFLICTS,
  'apiKeys.replace: concurrent replacements leave exactly one active key': NO_WRITE_CONFLICTS,
  'couriers.setStatus: of N concurrent claims from available exactly one wins':
    "jongodb's findAndModify is not atomic: of 10 concurrent findOneAndUpdate calls with {status: {$in: ['available']}} " +
    'in the filter, more than one matched in 17 of 300 trials (updateOne with the same filter never did)',
  'telemetry.record creates one row per merchant, mode, integration and site, and counts calls': NO_MIN_MAX_OPERATORS,
  'telemetry.record keeps the earliest first-seen and latest last-seen when calls arrive out of order': NO_MIN_MAX_OPERATORS,
  'telemetry.record: a null site is its own row; null version or agent never erases a known one': NO_MIN_MAX_OPERATORS,
  'telemetry.listByMerchant: most recently seen first; ties by integration, then site': NO_MIN_MAX_OPERATORS,
  'telemetry.record: concurrent calls of one row are all counted': NO_MIN_MAX_OPERATORS,
};

await runMongoContract({ title: 'Store contract', dbPrefix: 'exd_store_contract', describeContract: describeStoreContract, jongodbUnsupported: JONGODB_UNSUPPORTED });
