/**
 * Runs `run` now and every `everyMs`, never two at once (a run still going skips the tick); a
 * failed run goes to `failed` and the next one tries again. `stop` waits for the run in progress.
 */
export function startPeriodic(options: { everyMs: number; run: () => Promise<void>; failed: (error: Error) => void }): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  const tick = () => {
    if (running) return;
    running = options
      .run()
      .catch((error: unknown) => options.failed(error as Error))
      .finally(() => (running = null));
  };
  const timer = setInterval(tick, options.everyMs);
  timer.unref();
  tick();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
