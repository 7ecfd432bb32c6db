import { describe, expect, it } from 'vitest';
import { keepLoopWaitingFor } from '../../src/start-loop.js';

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

// main.ts holds the event loop while the start runs (so Node does not drain V8's background tasks
// whenever the start awaits only them), and lets it go once the start is over: a process whose
// start failed, or a short-lived one, still ends on its own.
describe('the event loop held during the start', () => {
  for (const outcome of ['succeeds', 'fails'] as const) {
    it(`is held while the start runs and let go once it ${outcome}`, async () => {
      const before = timers();
      let settle!: () => void;
      const start = new Promise<void>((resolve, reject) => (settle = outcome === 'succeeds' ? resolve : () => reject(new Error('could not start'))));
      start.catch(() => {});
      keepLoopWaitingFor(start);
      expect(timers()).toBe(before + 1);
      settle();
      await start.catch(() => {});
      await Promise.resolve();
      expect(timers()).toBe(before);
    });
  }
});
