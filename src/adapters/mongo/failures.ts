import { MongoError, MongoNetworkError, MongoServerError, MongoServerSelectionError, MongoWriteConcernError } from 'mongodb';
import { StoreUnavailableError } from '../../ports/unavailable.js';

/**
 * Server error codes meaning "this member cannot serve you right now": step-down and election,
 * shutdown, network trouble seen by the server, time limits, write concern not satisfied.
 * A client that retries later (or elsewhere) succeeds; none of them is the caller's fault.
 */
const UNAVAILABLE_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  50, // MaxTimeMSExpired
  64, // WriteConcernFailed (wtimeout)
  89, // NetworkTimeout
  91, // ShutdownInProgress
  100, // UnsatisfiableWriteConcern
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10058, // LegacyNotPrimary
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

const UNAVAILABLE_LABELS = ['RetryableWriteError', 'TransientTransactionError', 'UnknownTransactionCommitResult', 'ResetPool', 'SystemOverloadedError'];

/** Driver errors without a server code that mean the same (pool, topology, wait queue, client-side timeouts). */
const UNAVAILABLE_NAMES = new Set([
  'MongoNotConnectedError', 'MongoTopologyClosedError', 'MongoPoolClearedError', 'MongoPoolClosedError', 'MongoWaitQueueTimeoutError',
  'MongoOperationTimeoutError', 'MongoServerClosedError', 'MongoStalePrimaryError',
]);

/** A write concern error reported beside an otherwise successful write (findAndModify, bulk writes). */
function hasWriteConcernError(error: MongoError): boolean {
  const e = error as MongoError & { writeConcernError?: unknown; result?: { writeConcernErrors?: unknown[]; hasWriteConcernErrors?: () => boolean } };
  return !!e.writeConcernError || (Array.isArray(e.result?.writeConcernErrors) && e.result.writeConcernErrors.length > 0);
}

/**
 * Whether a driver error means "MongoDB cannot be reached or cannot serve this now" (→ 503 with
 * Retry-After), as opposed to a real failure of the operation (duplicate key, validation: the
 * caller's or our fault). Retryable writes, step-downs, transient transaction errors, network
 * errors and write concern errors all count.
 */
export function isMongoUnavailable(error: unknown): boolean {
  if (error instanceof StoreUnavailableError) return true;
  if (!(error instanceof MongoError)) return false;
  if (error instanceof MongoNetworkError || error instanceof MongoServerSelectionError || error instanceof MongoWriteConcernError) return true;
  if (UNAVAILABLE_NAMES.has(error.name)) return true;
  if (UNAVAILABLE_LABELS.some((label) => error.hasErrorLabel(label))) return true;
  if (typeof error.code === 'number' && UNAVAILABLE_CODES.has(error.code)) return true;
  return error instanceof MongoServerError && hasWriteConcernError(error);
}

/** Transaction errors after which running the whole transaction again is safe (nothing was committed). */
export function isTransientTransactionError(error: unknown): boolean {
  return error instanceof MongoError && error.hasErrorLabel('TransientTransactionError');
}

/** The commit may or may not have happened: committing again (same transaction) is what the spec asks. */
export function isUnknownCommitResult(error: unknown): boolean {
  return error instanceof MongoError && (error.hasErrorLabel('UnknownTransactionCommitResult') || isMongoUnavailable(error)) && !isTransientTransactionError(error);
}

/** The port-level error for an unavailable MongoDB, keeping the driver error as its cause. */
export function toStoreUnavailable(error: unknown, what: string): StoreUnavailableError {
  if (error instanceof StoreUnavailableError) return error;
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new StoreUnavailableError(`MongoDB unavailable during ${what} (${detail})`, { cause: error });
}
