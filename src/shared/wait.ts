// The bounded waits of every layer: a pause a stop cuts short, and a deadline
// on something that may never settle. Neither keeps the process alive. On the
// global timers rather than node:timers/promises: vitest's fake timers do not
// reach the latter, and the schedule and backoff tests run on fake time.

/**
 * The longest delay setTimeout runs (2^31-1 ms); a longer one fires after
 * 1 ms. The config's duration bounds and the schedules use this one too.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** Resolves after `ms`, or at once when `signal` aborts; never rejects. A wait past MAX_TIMER_MS is chained, never cut to 1 ms. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    let timer: NodeJS.Timeout;
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const arm = (left: number): void => {
      timer = left > MAX_TIMER_MS ? setTimeout(() => arm(left - MAX_TIMER_MS), MAX_TIMER_MS) : setTimeout(done, left);
      timer.unref();
    };
    arm(ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * The reason a wait that is no longer needed is aborted with: abort() without
 * one builds a DOMException, stack trace and all, and the OTLP sink ends two
 * such waits per batch: 0.3 µs of CPU per WAF event.
 */
export const NOT_NEEDED = 'not needed';

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
    expiry.abort(NOT_NEEDED);
  }
}
