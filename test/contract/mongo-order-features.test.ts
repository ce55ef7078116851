import { runMongoContract } from './mongo-suite.js';
import { describeOrderFeaturesContract } from './order-features.contract.js';

/**
 * Cases the jongodb test server cannot run, by name, with the reason. They are skipped on
 * jongodb only; against a real MongoDB (MONGODB_URL) every case runs.
 */
const JONGODB_UNSUPPORTED: Record<string, string> = {
  'orders.tryDeliveryPin: of 20 concurrent wrong tries exactly 5 are counted, the rest are locked':
    "jongodb's findAndModify is not atomic (see mongo-order-store.test.ts: of 10 concurrent findOneAndUpdate calls with a " +
    'compare-and-set filter, more than one matched in 8 of 300 trials), so a conditional $inc can count past its bound there',
  'ledger.payOutCod: three payouts of 4,000 at once out of 10,000 handed over write two':
    "jongodb does not make two transactions that write the same guard document conflict (each commits on its own snapshot), so " +
    'concurrent payouts both see the cash; a real MongoDB aborts one with a write conflict and the driver retries it',
  'ledger.handOverCod: two hand-overs of 6,000 at once out of 10,000 claimed cover it once':
    'jongodb: as for payouts (the guard document of the courier does not make the two transactions conflict)',
  'orders.addTip: concurrent tips on one order all count':
    "jongodb's findAndModify is not atomic (as above), so two concurrent $inc in transactions can lose one there; MongoDB's $inc under the document's write lock does not",
};

await runMongoContract({ title: 'Order features contract', dbPrefix: 'exd_features_contract', describeContract: describeOrderFeaturesContract, jongodbUnsupported: JONGODB_UNSUPPORTED });
