// Targets that left: a discovered domain or package the collectors still hold
// counters of, absent from the lists (deleted, expired, no longer this
// shard's) for `targets.forget_after`, is forgotten: the ledger drops its
// counters and watermarks, so it leaves /metrics, remote-write and the state
// files. Absence is timed from the first cycle that found the name held but
// not listed, so a discovery outage (the last good list is kept) never counts
// as absence. Static lists are never judged. The time is not persisted: after
// a restart the wait starts again (forgetting is late, never early).
import type { TargetsConfig } from '../../config/sections/targets.js';
import type { CollectorLogger, TargetLists } from '../collector.js';
import { isoOrUnknown } from '../../state/recovery.js';

type Kind = keyof TargetLists;

/** The label naming a target of each kind in the collectors' series. */
export const TARGET_LABEL: Readonly<Record<Kind, string>> = { domains: 'domain', packages: 'package' };

/** Which absent names are due to be forgotten at `now`: absent since at least `forgetAfterMs` ago. */
export function dueToForget(absentSince: ReadonlyMap<string, number>, now: number, forgetAfterMs: number): string[] {
  const due: string[] = [];
  for (const [name, since] of absentSince) if (now - since >= forgetAfterMs) due.push(name);
  return due.sort();
}

/** Shared by every collector of a daemon, so a target's absence has one clock and one log line. */
export class TargetForgetter {
  private readonly absent: Record<Kind, Map<string, number>> = { domains: new Map(), packages: new Map() };
  /** Names already logged as forgotten; cleared when one is listed again, so a second departure logs again. */
  private readonly logged: Record<Kind, Set<string>> = { domains: new Set(), packages: new Set() };
  private readonly forgetAfterMs: number;
  private readonly fixed: Readonly<Record<Kind, boolean>>;

  constructor(config: Pick<TargetsConfig, 'forget_after' | 'domains' | 'packages'>, private readonly log: CollectorLogger) {
    this.forgetAfterMs = config.forget_after;
    this.fixed = { domains: config.domains.static !== undefined, packages: config.packages.static !== undefined };
  }

  /**
   * The names of `kind` a collector holds (`held`) that are to be dropped at
   * `now`, given the names listed for this shard (`listed`). Names listed
   * again stop their clock; a forgotten one is logged once.
   */
  judge(kind: Kind, held: ReadonlySet<string>, listed: readonly string[], now: number): string[] {
    if (this.fixed[kind]) return [];
    const absent = this.absent[kind];
    const present = new Set(listed);
    for (const name of present) {
      absent.delete(name);
      this.logged[kind].delete(name);
    }
    for (const name of held) if (!present.has(name) && !absent.has(name)) absent.set(name, now);
    const due = dueToForget(absent, now, this.forgetAfterMs).filter((name) => held.has(name));
    this.prune(kind, held, now);
    for (const name of due) {
      if (this.logged[kind].has(name)) continue;
      this.logged[kind].add(name);
      this.log.info(
        { [TARGET_LABEL[kind]]: name, absentSince: isoOrUnknown(absent.get(name)), forgetAfterMs: this.forgetAfterMs },
        `${TARGET_LABEL[kind]} ${name} not listed for forget_after: its series are dropped from /metrics, remote-write and the state files`,
      );
    }
    return due;
  }

  /**
   * Lets go of names this collector does not hold that were due a whole
   * forget_after ago: the other collectors have had that long to drop them,
   * so the clocks kept cost nothing per departed name. A slower collector
   * still holding one starts its clock again: late, never early.
   */
  private prune(kind: Kind, held: ReadonlySet<string>, now: number): void {
    for (const [name, since] of this.absent[kind]) {
      if (held.has(name) || now - since < 2 * this.forgetAfterMs) continue;
      this.absent[kind].delete(name);
      this.logged[kind].delete(name);
    }
  }
}
