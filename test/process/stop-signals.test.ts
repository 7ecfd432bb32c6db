import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { exitOnStopSignals } from '../../src/shutdown.js';
import { testClock, waitFor } from '../support/wait.js';

// The signal handling of src/main.ts, driven in-process: `process.emit` runs the handlers without
// delivering a real signal, and `exit` is recorded instead of ending the test's process.

const logger = createLogger('silent');
let dispose: (() => void) | undefined;
afterEach(() => dispose?.());

function setup(stop: () => Promise<void>, deadlineMs = 10_000, clock = testClock()) {
  const exits: { code: number; atMs: number }[] = [];
  const started = Date.now();
  dispose = exitOnStopSignals(stop, logger, { deadlineMs, now: clock.now, exit: (code) => void exits.push({ code, atMs: Date.now() - started }) });
  return exits;
}

const until = (check: () => boolean) => waitFor(check, { timeoutMs: 2000, intervalMs: 10, message: 'an exit' });

describe('stop signals', () => {
  it('SIGTERM stops the service once and exits 0 when the drain finishes', async () => {
    let stops = 0;
    let drained!: () => void;
    const draining = new Promise<void>((resolve) => (drained = resolve));
    const exits = setup(async () => {
      stops++;
      await draining;
    });
    process.emit('SIGTERM', 'SIGTERM');
    expect(exits).toEqual([]); // not before the drain finishes
    drained();
    await until(() => exits.length > 0);
    expect(stops).toBe(1);
    expect(exits.map((e) => e.code)).toEqual([0]);
  });

  it('a second signal exits 1 at once, without waiting for the drain', async () => {
    const clock = testClock();
    const exits = setup(() => new Promise(() => {}), 10_000, clock);
    process.emit('SIGINT', 'SIGINT');
    // Past the echo window, where a second signal is the operator asking again.
    clock.advance(600);
    expect(exits).toEqual([]);
    process.emit('SIGINT', 'SIGINT');
    expect(exits.map((e) => e.code)).toEqual([1]);
  });

  it('takes the same Ctrl-C delivered twice at once (terminal and npm) as one request', async () => {
    let stops = 0;
    let drained!: () => void;
    const draining = new Promise<void>((resolve) => (drained = resolve));
    const exits = setup(async () => {
      stops++;
      await draining;
    });
    process.emit('SIGINT', 'SIGINT');
    process.emit('SIGINT', 'SIGINT');
    drained();
    await until(() => exits.length > 0);
    expect(stops).toBe(1);
    expect(exits.map((e) => e.code)).toEqual([0]);
  });

  it('a drain still running at the deadline exits 1', async () => {
    const exits = setup(() => new Promise(() => {}), 100);
    process.emit('SIGTERM', 'SIGTERM');
    await until(() => exits.length > 0);
    expect(exits.map((e) => e.code)).toEqual([1]);
    expect(exits[0]!.atMs).toBeGreaterThanOrEqual(95);
  });

  it('a failed drain exits 1', async () => {
    const exits = setup(() => Promise.reject(new Error('database gone')));
    process.emit('SIGTERM', 'SIGTERM');
    await until(() => exits.length > 0);
    expect(exits.map((e) => e.code)).toEqual([1]);
  });
});
