import { describeOperatorStoreContract } from './operator-store.contract.js';
import { runMongoContract } from './mongo-suite.js';

/** Cases the jongodb test server cannot run, by name, with the reason. */
const JONGODB_UNSUPPORTED: Record<string, string> = {
  'two admins demoting or disabling each other at once: never both, an active admin always stays':
    'jongodb 0.1.6 detects the write conflict only at commit, and keeps the losing transaction’s writes although its commit fails ' +
    '(as for the members’ owners: both admins ended up demoted). MongoDB aborts the loser at its first conflicting write and keeps nothing of it.',
};

await runMongoContract({ title: 'Operator store contract', dbPrefix: 'exd_operator_contract', describeContract: describeOperatorStoreContract, jongodbUnsupported: JONGODB_UNSUPPORTED });
