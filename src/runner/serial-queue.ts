import type { Logger } from '../logger.js';

/**
 * The engine runner's one line of work: rule reloads and firing writes run one after another, in
 * arrival order, so a reload never interleaves with a write that reads the rules it replaces.
 */
export class SerialQueue {
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly logger: Logger) {}

  /** Runs `task` after every task enqueued before it. A failed task is logged; the line goes on. */
  enqueue(task: () => Promise<void>): Promise<void> {
    const next = this.tail.then(task).catch((error: unknown) => this.logger.error({ err: error }, 'engine runner task failed'));
    this.tail = next;
    return next;
  }

  /** Resolves once every task is done, tasks enqueued meanwhile included. */
  async idle(): Promise<void> {
    let seen: Promise<void>;
    do {
      seen = this.tail;
      await seen;
    } while (seen !== this.tail);
  }
}
