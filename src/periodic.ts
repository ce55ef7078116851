/**
 * Runs `run` now and every `everyMs`, never two at once (a run still going skips the tick); a
 * failed run goes to `failed` and the next one tries again. `stop` aborts the run's signal (a run
 * made of steps ends after the one in progress) and waits for it.
 */
export function startPeriodic(options: { everyMs: number; run: (signal: AbortSignal) => Promise<void>; failed: (error: Error) => void }): { stop(): Promise<void> } {
  const stopping = new AbortController();
  let running: Promise<void> | null = null;
  const tick = () => {
    if (running) return;
    running = options
      .run(stopping.signal)
      .catch((error: unknown) => options.failed(error as Error))
      .finally(() => (running = null));
  };
  const timer = setInterval(tick, options.everyMs);
  timer.unref();
  tick();
  return {
    async stop() {
      clearInterval(timer);
      stopping.abort();
      await running;
    },
  };
}
