// The request budget: at most `rate` requests to the upstream in any one
// second, waiters served in the order they came, nothing dropped, and a pause
// per host while the upstream has asked us (Retry-After) to wait.
//
// Written here rather than taken from a package: p-throttle, p-queue,
// bottleneck and limiter were looked at, and none has all of a rate that
// changes at run time (AIMD, throttle.ts), FIFO with a per-waiter abort
// signal, and a pause that holds every request to one host while the other
// goes on. p-queue's fixed intervals also let 2N through a sliding second
// (N at the end of one interval, N at the start of the next).
//
// A slot is held until one interval after its request *settled*, not after
// it was sent: the upstream counts a request when it arrives, some unknown
// time after the send, but always before it answers, so any N+1 requests it
// sees are at least one second apart. Every rate rule of the client is one of
// these gates (rate-rules.ts). N requests may
// go at once (a burst of N). Above 1/s the rate counts whole requests (7.5 is
// 7 slots held 1 s: more would put 8 in some second); below, it is one slot
// held 1/rate s (0.5 is one request every 2 s).
import { ArgumentError } from '../shared/errors.js';

/** One admitted request; release it once it has settled (answer, failure or abort), exactly once. */
export interface Permit {
  /** When it was admitted, ms on the gate's clock. */
  readonly sentAt: number;
  release(): void;
}

interface Waiter {
  readonly host: string;
  readonly done: (permit: Permit | undefined) => void;
}

export class RateGate {
  private rate = Number.POSITIVE_INFINITY;
  private slots = Number.POSITIVE_INFINITY;
  private holdMs = 0;
  private inFlight = 0;
  /** When each settled request's slot frees up, ms. */
  private held: number[] = [];
  /** Admission times within the last second: what "the rate we were sending at" is when no rate is set. */
  private sent: number[] = [];
  private readonly queue: Waiter[] = [];
  private readonly pauses = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  /** `rate` per second, Infinity for none; `now` is the clock (ms) the windows are measured on. */
  constructor(rate: number, private readonly now: () => number = Date.now) {
    this.setRate(rate);
  }

  /** The gate's clock, ms: permits' sentAt are on it. */
  clock(): number {
    return this.now();
  }

  get ratePerSecond(): number {
    return this.rate;
  }

  /** A new rate from now on; slots already held keep their release times. */
  setRate(rate: number): void {
    if (!(rate > 0)) throw new ArgumentError(`a rate must be positive, got ${rate}`);
    this.rate = rate;
    this.slots = Number.isFinite(rate) ? Math.max(1, Math.floor(rate)) : Number.POSITIVE_INFINITY;
    // One millisecond more than the window: our clock and timers count whole milliseconds, the upstream's
    // counts finer, so a slot freed after exactly 1000 ms can let rate + 1 requests land 999.9 ms apart.
    this.holdMs = Number.isFinite(rate) ? Math.max(1000, 1000 / rate) + 1 : 0;
    this.drain();
  }

  /** Holds every request to `host` until `untilMs` (a later pause wins over an earlier one). */
  pause(host: string, untilMs: number): void {
    if (untilMs > (this.pauses.get(host) ?? 0)) this.pauses.set(host, untilMs);
    this.drain();
  }

  /** Requests admitted in the last second. */
  recentlySent(): number {
    this.prune(this.now());
    return this.sent.length;
  }

  /**
   * A permit once the budget and `host`'s pause allow, in arrival order;
   * undefined when `signal` aborts first (the waiter leaves the queue).
   * `onWait` is called when the request cannot go at once.
   */
  acquire(host: string, signal?: AbortSignal, onWait?: () => void): Promise<Permit | undefined> {
    if (signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const onAbort = (): void => {
        const at = this.queue.indexOf(waiter);
        if (at >= 0) this.queue.splice(at, 1);
        resolve(undefined);
        this.drain();
      };
      const waiter: Waiter = {
        host,
        done: (permit) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(permit);
        },
      };
      this.queue.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.drain();
      if (this.queue.includes(waiter)) onWait?.();
    });
  }

  private prune(now: number): void {
    if (this.held.length > 0) this.held = this.held.filter((t) => t > now);
    if (this.sent.length > 0) this.sent = this.sent.filter((t) => t > now - 1000);
    for (const [host, until] of this.pauses) if (until <= now) this.pauses.delete(host);
  }

  /** Admits waiters in order while slots are free; a waiter whose host is paused lets later ones to other hosts pass. */
  private drain(): void {
    const now = this.now();
    this.prune(now);
    for (let i = 0; i < this.queue.length && this.inFlight + this.held.length < this.slots;) {
      const waiter = this.queue[i];
      if (waiter === undefined) break;
      if (this.pauses.has(waiter.host)) {
        i += 1;
        continue;
      }
      this.queue.splice(i, 1);
      waiter.done(this.admit(now));
    }
    this.arm(now);
  }

  private admit(now: number): Permit {
    this.inFlight += 1;
    this.sent.push(now);
    let released = false;
    return {
      sentAt: now,
      release: () => {
        if (released) return;
        released = true;
        this.inFlight -= 1;
        if (this.holdMs > 0) this.held.push(this.now() + this.holdMs);
        this.drain();
      },
    };
  }

  /** One timer for the next moment a waiter could go: a slot freeing or a pause ending. Not unref'd: waiting is work in progress. */
  private arm(now: number): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queue.length === 0) return;
    const moments: number[] = [];
    if (this.inFlight + this.held.length >= this.slots) moments.push(Math.min(...this.held));
    for (const waiter of this.queue) {
      const until = this.pauses.get(waiter.host);
      if (until !== undefined) moments.push(until);
    }
    const next = Math.min(...moments);
    // Only in-flight requests hold the slots: their release drains again.
    if (!Number.isFinite(next)) return;
    this.timer = setTimeout(() => this.drain(), Math.max(0, next - now));
  }
}
