import { describeOperatorStoreContract } from './operator-store.contract.js';
import { runMongoContract } from './mongo-suite.js';

await runMongoContract({ title: 'Operator store contract', dbPrefix: 'exd_operator_contract', describeContract: describeOperatorStoreContract, jongodbUnsupported: {} });
