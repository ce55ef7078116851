import { runMongoContract } from './mongo-suite.js';
import { describeOrderStoreContract } from './order-store.contract.js';

/**
 * Cases the jongodb test server cannot run, by name, with the reason. They are skipped on
 * jongodb only; against a real MongoDB (MONGODB_URL) every case runs.
 */
const INSERT_CONFLICT_NOT_TRANSIENT =
  'jongodb reports the conflict between concurrent transactions inserting one _id at commit (code 112) without the ' +
  'TransientTransactionError label, so the driver does not retry them as it does on MongoDB (in a probe, 47 of 50 such ' +
  'transactions failed with it instead of retrying into the duplicate-key answer)';
const NO_WRITE_CONFLICTS =
  'jongodb does not detect write conflicts between concurrent transactions that update one document: 20 concurrent ' +
  'transactions each doing findOneAndUpdate {$inc: {n: 1}} all committed and left n=1, so the status compare-and-set ' +
  'and the event sequence cannot hold';
const FIND_AND_MODIFY_NOT_ATOMIC =
  "jongodb's findAndModify is not atomic: of 10 concurrent findOneAndUpdate calls with {status: {$in: ['pending']}} " +
  'in the filter, more than one matched in 8 of 300 trials';
const JONGODB_UNSUPPORTED: Record<string, string> = {
  'orders.create: of 50 concurrent creates with one idempotency key exactly one creates an order': INSERT_CONFLICT_NOT_TRANSIENT,
  'orders.apply: of 20 concurrent applies from new exactly one wins and history has no gaps': NO_WRITE_CONFLICTS,
  'orders.apply: 20 concurrent transitions that all apply get sequences 2..21 without gaps or duplicates': NO_WRITE_CONFLICTS,
  'batches.update: of 10 concurrent claims from pending exactly one wins': FIND_AND_MODIFY_NOT_ATOMIC,
  'couriers.setStatus: of 10 concurrent claims with different jobs exactly one wins and its job is kept': FIND_AND_MODIFY_NOT_ATOMIC,
};

await runMongoContract({ title: 'Order store contract', dbPrefix: 'exd_order_contract', describeContract: describeOrderStoreContract, jongodbUnsupported: JONGODB_UNSUPPORTED });
