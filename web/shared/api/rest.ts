import { ApiError, refusal, type FieldProblem } from './errors.js';

/** A call to /api/v1 with the page's cookie: JSON (or raw bytes) in, the answer's fields out. */
export interface RestCall {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as they are (an image), with their own type. */
  bytes?: Blob;
  /** Headers every non-GET request of this app carries (its CSRF header). */
  headers?: Record<string, string>;
}

interface Envelope { success?: boolean; error?: { code?: string; message?: string; details?: Record<string, unknown>; fields?: FieldProblem[] } }

/**
 * The REST API as the room's apps call it: same origin, the session cookie, the answer's fields
 * (`{ success: true, …fields }`, success dropped); a refusal becomes an ApiError with the API's code (an ended session also tells
 * the app, see onSessionEnded); no answer at all becomes a NETWORK error.
 */
export async function rest<T>(path: string, call: RestCall = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
  let body: BodyInit | undefined;
  if (call.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(call.json);
  } else if (call.bytes) {
    headers['content-type'] = call.bytes.type || 'application/octet-stream';
    body = call.bytes;
  }
  let response: Response;
  try {
    response = await fetch(`/api/v1${path}`, { method: call.method ?? (body === undefined ? 'GET' : 'POST'), credentials: 'same-origin', headers, body });
  } catch {
    throw new ApiError('NETWORK', 'No connection');
  }
  if (response.status === 204) return undefined as T;
  const envelope = (await response.json().catch(() => ({}))) as Envelope;
  if (!response.ok || envelope.success === false) {
    const error = envelope.error ?? {};
    throw refusal(error.code ?? (response.status >= 500 ? 'SERVICE_UNAVAILABLE' : 'INTERNAL_ERROR'), error.message ?? `HTTP ${response.status}`, error.details, error.fields);
  }
  const { success: _success, ...fields } = envelope;
  return fields as T;
}
