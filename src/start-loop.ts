/**
 * Keeps Node's event loop referenced until `work` settles, so that it keeps waiting for events
 * instead of draining V8's background tasks.
 *
 * During the start the process often awaits only work that V8 does on its background thread (the
 * WebAssembly compiles of PGlite and of its pg_trgm extension). Node's loop then has no handle or
 * request of its own left, leaves `uv_run`, and before deciding whether to exit waits in its
 * platform's `DrainTasks` for *every* queued background task, unrelated ones included (optimising
 * compiles of JavaScript and of WebAssembly functions, GC tasks), rather than resuming as soon as
 * the awaited compile posts its result. On a later start that was ~60–110 ms of the main thread
 * blocked (perf: `uv_cond_wait` < `NodePlatform::DrainTasks`; docs/PERFORMANCE.md, "Later start,
 * seventh round"). With a referenced timer the loop waits in `epoll`, where that result wakes it.
 */
export function keepLoopWaitingFor(work: Promise<unknown>): void {
  const timer = setInterval(() => {}, 2 ** 31 - 1);
  const release = () => clearInterval(timer);
  work.then(release, release);
}
