// edge_waf_rule_info: what each rule id of the denied counter means. The
// labels come from the same primary rule (rules[0]) the counter takes its
// rule_id from, so every rule_id there finds its description here. One
// series per rule id: a later deny event naming the rule with another
// description or group replaces the series. Bounded like the counter (at
// most limits.series_per_family rules; a new rule past it is left out and
// counted) and forgotten like a target: a rule absent from
// targets.forget_after of deny events READ (measured by the forwarder's read
// position, the end of the windows delivered) is dropped. Measured so, an
// upstream outage or a backlog never counts as absence. Saved with the
// checkpoint (checkpoint.ts), so a restart keeps every description the
// counter's rule ids need.
import type { Sample } from '../collectors/collector.js';
import type { LogEvent } from './log-sink.js';
import { ATTR } from './attributes.js';
import { WAF_RULE_INFO } from './metrics.js';

type RuleInfoLabels = Readonly<Record<'rule_id' | 'description' | 'category', string>>;

/** An attribute the converter set as text; '' when absent. */
function text(event: LogEvent, name: string): string {
  const v = event.attributes[name];
  return typeof v === 'string' ? v : '';
}

/** A rule as the checkpoint holds it: rule_id, description, category, seen at (read position, ms). */
export type SavedRule = readonly [string, string, string, number];

interface HeldRule {
  labels: RuleInfoLabels;
  /** The read position (window end, ms) when the rule was last seen. */
  seenAtMs: number;
}

export class RuleInfo {
  private readonly rules = new Map<string, HeldRule>();
  private droppedEvents = 0;

  constructor(private readonly cap: number, private readonly forgetAfterMs: number) {}

  /**
   * Deny events read in a window ending at `windowEndMs`: the last one naming
   * a rule describes it. Returns the rules it set, for the checkpoint's journal.
   */
  see(events: readonly LogEvent[], windowEndMs: number): SavedRule[] {
    const seen = new Map<string, HeldRule>();
    for (const event of events) {
      const ruleId = text(event, ATTR.SECURITY_RULE_UUID);
      if (ruleId === '') continue;
      const description = text(event, ATTR.SECURITY_RULE_DESCRIPTION);
      const category = text(event, ATTR.SECURITY_RULE_CATEGORY);
      const held = this.rules.get(ruleId);
      if (held !== undefined) {
        // A new labels object only when they change: one per event was garbage on every batch.
        if (held.labels.description !== description || held.labels.category !== category) held.labels = { rule_id: ruleId, description, category };
        held.seenAtMs = Math.max(held.seenAtMs, windowEndMs);
        seen.set(ruleId, held);
      } else if (this.rules.size < this.cap) {
        const added = { labels: { rule_id: ruleId, description, category }, seenAtMs: windowEndMs };
        this.rules.set(ruleId, added);
        seen.set(ruleId, added);
      } else {
        this.droppedEvents += 1;
      }
    }
    return [...seen.values()].map(saved);
  }

  /** For the checkpoint file. */
  entries(): SavedRule[] {
    return [...this.rules.values()].map(saved);
  }

  /** What the checkpoint held; past the cap (lowered since), the rules seen last are kept. */
  restore(entries: readonly SavedRule[]): void {
    this.rules.clear();
    const newest = [...entries].sort((a, b) => b[3] - a[3]).slice(0, this.cap);
    for (const [rule_id, description, category, seenAtMs] of newest) this.rules.set(rule_id, { labels: { rule_id, description, category }, seenAtMs });
  }

  /** The events were read up to `readToMs`: rules not seen in the forget_after before it go. */
  forget(readToMs: number): void {
    for (const [ruleId, held] of this.rules) if (readToMs - held.seenAtMs >= this.forgetAfterMs) this.rules.delete(ruleId);
  }

  /** Deny events whose rule was not held because the cap was reached, since start. */
  get dropped(): number {
    return this.droppedEvents;
  }

  samples(): Sample[] {
    return [...this.rules.values()].map((held) => ({ name: WAF_RULE_INFO.name, labels: held.labels, value: 1 }));
  }
}

function saved(held: HeldRule): SavedRule {
  return [held.labels.rule_id, held.labels.description, held.labels.category, held.seenAtMs];
}
