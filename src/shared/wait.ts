// The bounded waits of every layer: a pause a stop cuts short, and a deadline
// on something that may never settle. Neither keeps the process alive. On the
// global timers rather than node:timers/promises: vitest's fake timers do not
// reach the latter, and the schedule and backoff tests run on fake time.

/** Resolves after `ms`, or at once when `signal` aborts; never rejects. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref();
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Whether `promise` settles (either way) before `ms` elapse; never rejects. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const expiry = new AbortController();
  const settled = promise.then(
    () => true,
    () => true,
  );
  try {
    return await Promise.race([settled, pause(ms, expiry.signal).then(() => false)]);
  } finally {
    // The promise won: the timer is not needed any more.
    expiry.abort();
  }
}
