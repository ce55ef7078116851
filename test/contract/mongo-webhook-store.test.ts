import { runMongoContract } from './mongo-suite.js';
import { describeWebhookStoreContract } from './webhook-store.contract.js';

/**
 * Cases the jongodb test server cannot run, by name, with the reason. They are skipped on
 * jongodb only; against a real MongoDB (MONGODB_URL) every case runs.
 */
const FIND_AND_MODIFY_NOT_ATOMIC =
  "jongodb's findAndModify is not atomic: in a probe of 30 trials of 10 concurrent claimers, each looping " +
  "findOneAndUpdate({status: 'pending', nextAttemptAt <= now, leaseUntil null or <= now}, $set lease) over 50 " +
  'due documents, 17 trials handed one document to two claimers (90 duplicate claims in all)';
const JONGODB_UNSUPPORTED: Record<string, string> = {
  'webhooks.claimDue: 10 concurrent claimers over 50 due deliveries get every delivery exactly once': FIND_AND_MODIFY_NOT_ATOMIC,
  'webhooks.claimDue: 6 concurrent claimers never put more than the endpoint’s cap in flight': FIND_AND_MODIFY_NOT_ATOMIC,
};

await runMongoContract({ title: 'Webhook store contract', dbPrefix: 'exd_webhook_contract', describeContract: describeWebhookStoreContract, jongodbUnsupported: JONGODB_UNSUPPORTED });
