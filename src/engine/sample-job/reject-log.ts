// Which refused points to log: each series and reason at most once an hour,
// so an upstream that keeps sending a negative value is visible in the log
// without a line per cycle (the self-metric counts every point). Memory stays
// bounded: an entry is forgotten an hour after its line, so the map holds
// only series refused within the last hour.
import type { RejectedPoints } from '../../collectors/rejects.js';

export const REJECT_LOG_EVERY_MS = 3_600_000;

export class RejectLog {
  /** `series` NUL `reason` -> when its last line was written (the engine's clock). */
  private readonly logged = new Map<string, number>();

  constructor(private readonly everyMs = REJECT_LOG_EVERY_MS) {}

  /** The entries to log at `now`: those whose series and reason had no line within the hour (they get one now). */
  due(rejected: readonly RejectedPoints[], now: number): RejectedPoints[] {
    for (const [key, at] of this.logged) if (now - at >= this.everyMs) this.logged.delete(key);
    return rejected.filter((r) => {
      const key = `${r.series}\u0000${r.reason}`;
      if (this.logged.has(key)) return false;
      this.logged.set(key, now);
      return true;
    });
  }

  /** Series and reasons with a line within the hour (for tests of the bound on memory). */
  get size(): number {
    return this.logged.size;
  }
}
