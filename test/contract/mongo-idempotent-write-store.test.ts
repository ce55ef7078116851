import { describeIdempotentWriteStoreContract } from './idempotent-write-store.contract.js';
import { runMongoContract } from './mongo-suite.js';

await runMongoContract({
  title: 'Idempotent-write store contract',
  dbPrefix: 'exd_idempotent_write_contract',
  describeContract: describeIdempotentWriteStoreContract,
  jongodbUnsupported: {},
});
