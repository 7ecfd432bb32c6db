/**
 * Runs `task` every `everyMs`, never two at once (a tick while one runs is skipped); a failure goes
 * to `onError` and the next tick runs as usual. The timer keeps no process alive. `stop` waits for
 * the run in progress.
 */
export function startPeriodic(task: () => Promise<void>, everyMs: number, onError: (err: unknown) => void): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = Promise.resolve()
      .then(task)
      .catch(onError)
      .finally(() => (running = undefined));
  }, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
