import { describe, expect, it } from 'vitest';
import { RuleSet } from '../../src/runner/rule-set.js';
import { SerialQueue } from '../../src/runner/serial-queue.js';
import { silent } from './helpers.js';

describe('RuleSet (the engine runner\'s loaded rules)', () => {
  it('counts the rules following each token; a token is dropped only when its last rule goes', () => {
    const rules = new RuleSet();
    const a = rules.add({ subscriptionId: 's1', marketId: 'm1', token: 't1' });
    const b = rules.add({ subscriptionId: 's2', marketId: 'm1', token: 't1' });
    const c = rules.add({ subscriptionId: 's2', marketId: 'm2', token: 't2' });
    expect([a.firstOfToken, b.firstOfToken, c.firstOfToken]).toEqual([true, false, true]);
    expect(rules.tokens().sort()).toEqual(['t1', 't2']);

    const dropped = new Set<string>();
    expect(rules.removeSubscription('s2', dropped).sort()).toEqual([b.ruleId, c.ruleId].sort());
    expect([...dropped]).toEqual(['t2']);
    expect(rules.follows('t1')).toBe(true);
    expect(rules.follows('t2')).toBe(false);
    expect(rules.removeSubscription('unknown', dropped)).toEqual([]);
    expect(rules.tokenCount).toBe(1);
  });

  it('reuses freed rule ids, so the rule index stays dense', () => {
    const rules = new RuleSet();
    const ids = [0, 1, 2].map((i) => rules.add({ subscriptionId: `s${i}`, marketId: 'm', token: `t${i}` }).ruleId);
    expect(ids).toEqual([0, 1, 2]);
    rules.removeSubscription('s1', new Set());
    expect(rules.add({ subscriptionId: 's3', marketId: 'm', token: 't3' }).ruleId).toBe(1);
    expect(rules.add({ subscriptionId: 's4', marketId: 'm', token: 't4' }).ruleId).toBe(3);
  });
});

describe('SerialQueue (reloads and firing writes in arrival order)', () => {
  it('runs tasks one after another; a failed task does not stop the line; idle waits for tasks enqueued meanwhile', async () => {
    const queue = new SerialQueue(silent);
    const ran: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    void queue.enqueue(async () => {
      await gate;
      ran.push('first');
      void queue.enqueue(async () => void ran.push('enqueued by first'));
    });
    void queue.enqueue(async () => {
      throw new Error('fails');
    });
    void queue.enqueue(async () => void ran.push('third'));
    const idle = queue.idle();
    expect(ran).toEqual([]);
    release();
    await idle;
    expect(ran).toEqual(['first', 'third', 'enqueued by first']);
  });
});
