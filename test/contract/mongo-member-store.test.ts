import { describeMemberStoreContract } from './member-store.contract.js';
import { runMongoContract } from './mongo-suite.js';

/** Cases the jongodb test server cannot run, by name, with the reason. */
const JONGODB_UNSUPPORTED: Record<string, string> = {
  'two owners demoting or removing each other at once: never both, an active owner always stays':
    'jongodb 0.1.6 detects the write conflict only at commit, and keeps the losing transaction’s writes although its commit fails ' +
    '("commit transaction write conflict on _id=owners:…"; both owners ended up demoted). MongoDB aborts the loser at its first conflicting write and keeps nothing of it.',
};

await runMongoContract({ title: 'Member store contract', dbPrefix: 'exd_member_contract', describeContract: describeMemberStoreContract, jongodbUnsupported: JONGODB_UNSUPPORTED });
