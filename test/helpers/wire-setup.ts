/**
 * Loaded before every test file (vitest `setupFiles`): every `fetch` a test makes to an /api/v1
 * URL has its response checked against the served OpenAPI document (wire-validator.ts), and any
 * problem found — there, or in a webhook delivery a test receiver recorded — fails the test that
 * was running. Bodies are read from a clone, so the test still reads the response as usual.
 */
import { afterAll, afterEach } from 'vitest';
import { checkRestResponse, takeWireProblems } from './wire-validator.js';

// With shared workers (vitest `isolate: false`) this file runs again for each test file: wrap the
// platform's fetch once, not the wrapper of the previous file.
const REAL_FETCH = Symbol.for('exd.test.realFetch');
const holder = globalThis as typeof globalThis & { [REAL_FETCH]?: typeof fetch };
const realFetch = (holder[REAL_FETCH] ??= globalThis.fetch);
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;

globalThis.fetch = async function checkedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await realFetch(input, init);
  const url = response.url || (input instanceof Request ? input.url : String(input));
  if (!new URL(url).pathname.startsWith('/api/v1')) return response;
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
  const contentType = response.headers.get('content-type');
  // Only JSON bodies are read (a stream or a page is checked by its status and type alone).
  const body = contentType && JSON_TYPE.test(contentType) ? await response.clone().text() : '';
  checkRestResponse({ method, url, status: response.status, contentType, body });
  return response;
};

function failOnProblems(): void {
  const problems = takeWireProblems();
  if (problems.length > 0) {
    throw new Error(`${problems.length} response(s) or webhook(s) do not match the OpenAPI document:\n- ${problems.slice(0, 20).join('\n- ')}`);
  }
}

afterEach(failOnProblems);
afterAll(failOnProblems);
