// The documented "at most N requests per second per user" on the order
// operations, held on the client's side. The upstream counts a request when it
// arrives, some unknown time after it was sent (a new connection takes tens of
// ms, a reused one almost nothing), so spacing the *sends* one second apart is
// not enough: a slow first request and a fast eleventh one land in the same
// upstream second. Each of the N slots (p-limit) is therefore held until one
// interval after its request *finished*; the upstream saw the request before
// it answered, so any N+1 requests it sees are at least one interval apart.
import pLimit, { type LimitFunction } from 'p-limit';
import { pause } from '../shared/wait.js';

export class OrderGate {
  private readonly slots: LimitFunction;
  private readonly holdMs: number;

  /** `perSecond` may be fractional: 0.5 is one request per 2 s. */
  constructor(perSecond: number) {
    const permits = Math.max(1, Math.floor(perSecond));
    this.holdMs = (1000 * permits) / perSecond;
    this.slots = pLimit(permits);
  }

  /** Runs `fn` once a slot is free (calling `onWait` if it has to wait); the slot frees one interval after `fn` settles. */
  run<T>(fn: () => Promise<T>, onWait?: () => void): Promise<T> {
    if (this.slots.activeCount + this.slots.pendingCount >= this.slots.concurrency) onWait?.();
    return new Promise<T>((resolve, reject) => {
      void this.slots(async () => {
        await fn().then(resolve, reject);
        await pause(this.holdMs);
      });
    });
  }
}
