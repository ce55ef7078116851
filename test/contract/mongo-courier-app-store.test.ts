import { describeCourierAppStoreContract } from './courier-app-store.contract.js';
import { runMongoContract } from './mongo-suite.js';

await runMongoContract({ title: 'Courier app store contract', dbPrefix: 'exd_courier_app_contract', describeContract: describeCourierAppStoreContract, jongodbUnsupported: {} });
