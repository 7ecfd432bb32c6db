import { describe, expect, it } from 'vitest';
import { expectNothingFor, testClock, waitFor } from './wait.js';

describe('waiting in tests', () => {
  it('waitFor answers the first truthy value of the condition, retrying while it throws', async () => {
    let calls = 0;
    const value = await waitFor(
      () => {
        calls++;
        if (calls < 3) throw new Error('not yet');
        return calls < 5 ? false : { calls };
      },
      { intervalMs: 1 },
    );
    expect(value).toEqual({ calls: 5 });
  });

  it('waitFor says what it waited for, with the last failure as the cause', async () => {
    const error = await waitFor(
      () => {
        throw new Error('still 0 rows');
      },
      { timeoutMs: 30, intervalMs: 5, message: 'the delivery row' },
    ).catch((err: Error) => err);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe('timed out after 30 ms waiting for the delivery row');
    expect(((error as Error).cause as Error).message).toBe('still 0 rows');
  });

  it('expectNothingFor passes when nothing happens and fails as soon as something does', async () => {
    await expectNothingFor(20, () => [], { intervalMs: 5 });
    await expectNothingFor(20, () => false, { intervalMs: 5 });

    const events: string[] = [];
    setTimeout(() => events.push('late'), 10);
    const started = Date.now();
    const error = await expectNothingFor(5_000, () => events, { intervalMs: 5, message: 'an event' }).catch((err: Error) => err);
    expect((error as Error).message).toBe('expected nothing within 5000 ms, but an event happened: ["late"]');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('testClock runs with real time and moves forward on demand', async () => {
    const clock = testClock();
    const before = Date.now();
    expect(clock.now()).toBeGreaterThanOrEqual(before);
    clock.advance(60_000);
    expect(clock.now() - Date.now()).toBeGreaterThanOrEqual(59_000);
  });
});
