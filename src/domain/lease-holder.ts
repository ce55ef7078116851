import type { LeaseRepository } from '../ports/store.js';

/**
 * Runs `work` while holding the named lease (issue #41 item 4): null at once when another node holds
 * it. A heartbeat renews the lease every third of `ttlMs` while the work runs; when a renewal fails
 * (another node took it, or the store did not answer) the heartbeat stops and `work`'s signal is
 * aborted (the work ends after its step in progress). A node that crashes stops renewing: its lease
 * runs out `ttlMs` later and the next node to ask takes it.
 */
export async function whileHoldingLease<T>(options: {
  leases: LeaseRepository;
  name: string;
  owner: string;
  ttlMs: number;
  signal?: AbortSignal;
  work: (signal: AbortSignal) => Promise<T>;
}): Promise<T | null> {
  const { leases, name, owner, ttlMs } = options;
  if (!(await leases.acquire({ name, owner, ttlMs }))) return null;
  const lost = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, lost.signal]) : lost.signal;
  let renewing = false;
  const heartbeat = setInterval(() => {
    if (renewing || lost.signal.aborted) return;
    renewing = true;
    leases.acquire({ name, owner, ttlMs }).then(
      (held) => {
        renewing = false;
        if (!held) lose();
      },
      () => {
        renewing = false;
        lose();
      },
    );
  }, Math.max(10, ttlMs / 3));
  heartbeat.unref();
  function lose(): void {
    clearInterval(heartbeat);
    lost.abort(new Error(`lease ${name} lost`));
  }
  try {
    return await options.work(signal);
  } finally {
    clearInterval(heartbeat);
  }
}
