// The documented "at most 10 requests per second per user" on the order
// operations, as a sliding window per token. It runs on the simulator clock,
// not the wall clock: the limit is part of the vendor behaviour being
// simulated (not protection for this process), and on the simulator clock a
// test can hit and clear it deterministically by pinning and advancing time.

export class RateLimiter {
  private readonly accepted = new Map<string, number[]>();

  constructor(
    private readonly limit = 10,
    private readonly windowMs = 1000,
  ) {}

  /** Records and allows the request unless `limit` were already accepted in (now − window, now]. */
  allow(key: string, now: number): boolean {
    // Entries after `now` only exist if the clock was set back; they no longer count.
    const recent = (this.accepted.get(key) ?? []).filter((t) => t > now - this.windowMs && t <= now);
    const allowed = recent.length < this.limit;
    if (allowed) recent.push(now);
    this.accepted.set(key, recent);
    return allowed;
  }

  reset(): void {
    this.accepted.clear();
  }
}
