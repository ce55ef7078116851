import { runMongoContract } from './mongo-suite.js';
import { describeNotificationStoreContract } from './notification-store.contract.js';

await runMongoContract({ title: 'Notification store contract', dbPrefix: 'exd_notification_contract', describeContract: describeNotificationStoreContract, jongodbUnsupported: {} });
