import { FAILED_ATTEMPT_POLICIES, FAILED_ATTEMPT_REASONS } from '../src/domain/types.js';
import { builder } from './builder.js';

/** The failed-attempt enums, shared by the order, courier and merchant settings schemas. */
export const FailedAttemptReasonEnum = builder.enumType('FailedAttemptReason', { values: FAILED_ATTEMPT_REASONS });
export const FailedAttemptPolicyEnum = builder.enumType('FailedAttemptPolicy', {
  values: FAILED_ATTEMPT_POLICIES,
  description: 'What a failed delivery attempt leads to: retry (up to 3 attempts, then the return), return (the default) or dispose.',
});
