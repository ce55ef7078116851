import { describeMemberStoreContract } from './member-store.contract.js';
import { runMongoContract } from './mongo-suite.js';

/** Cases the jongodb test server cannot run, by name, with the reason (none found so far). */
const JONGODB_UNSUPPORTED: Record<string, string> = {};

await runMongoContract({ title: 'Member store contract', dbPrefix: 'exd_member_contract', describeContract: describeMemberStoreContract, jongodbUnsupported: JONGODB_UNSUPPORTED });
