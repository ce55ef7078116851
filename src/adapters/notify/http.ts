/** One provider request with a deadline; the answer's status and (bounded) text, or the network error. */
export async function postWithTimeout(url: string, init: { headers: Record<string, string>; body: string; timeoutMs: number }): Promise<{ status: number; text: string } | { error: string }> {
  try {
    const response = await fetch(url, { method: 'POST', headers: init.headers, body: init.body, redirect: 'manual', signal: AbortSignal.timeout(init.timeoutMs) });
    const text = (await response.text()).slice(0, 2000);
    return { status: response.status, text };
  } catch (error) {
    return { error: (error as Error).name === 'TimeoutError' ? `timed out after ${init.timeoutMs} ms` : (error as Error).message };
  }
}

/** The provider's own error message from a JSON answer, when it gives one. */
export function providerMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { message?: unknown; error?: { message?: unknown } };
    const message = typeof body.error?.message === 'string' ? body.error.message : typeof body.message === 'string' ? body.message : null;
    if (message) return message.slice(0, 300);
  } catch {
    // not JSON
  }
  return text.slice(0, 300);
}

/** 4xx other than 408 and 429 are refusals that no retry changes. */
export const isPermanentStatus = (status: number) => status >= 400 && status < 500 && status !== 408 && status !== 429;
