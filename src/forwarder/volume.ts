// The volume policy (waf_events.max_rate, waf_events.over_rate). Pure: no
// clock, no I/O; the forwarder waits and delivers.
//
// delay: every event is forwarded, paced to max_rate events per second of
// wall time. A batch goes when its turn comes, and the next one may go
// `batch / max_rate` seconds later: at most max_rate per second on average,
// in bursts of one batch. A whole batch is the unit because the receiver
// confirms batches; a token bucket would only spread that one request.
//
// summarize: a window of event time may forward max_rate events for each of
// its new seconds (from the cursor to its end; a final pass, window.ts, adds
// none, so the late records it finds are folded), less what a run stopped by a crash already delivered in it. The
// events past that budget are folded into one summary record per minute,
// domain, rule and client address, delivered after the window's last page.
// The events a summary folds are marked delivered (and counted in
// edge_waf_denied_requests_total) only once the receiver confirmed it, like
// any other event, so a crash before that reads them again. A summary's uid
// is derived from its key and the ids it folds, not from its window: the
// summary a crash made the daemon send again (confirmed, its save lost) has
// the same uid when it folds the same events, however the window read again
// is cut (after a restart its end may differ, and a checkpoint written
// before the final pass resumes with the overlap), and a backend drops it like a repeated event; if it folds
// other events (late records joined the key), it is another record: a
// duplicate count bounded by that batch, never an event lost behind a reused
// uid. Events once confirmed are never folded again, so two summaries with
// the same key and ids are the same summary.
import { createHash } from 'node:crypto';
import type { LogEvent } from './log-sink.js';
import { ATTR, EDGE_ATTR, EVENT_NAME } from './attributes.js';
import { keptOf } from './kept.js';
import type { Checkpoint, TimeWindow } from './window.js';

export type OverRate = 'delay' | 'summarize';

export interface VolumeOptions {
  /** Events per second forwarded; undefined: unlimited. */
  readonly maxRate: number | undefined;
  readonly overRate: OverRate;
}

/** When a batch of `events` may go (waitMs from now) and when the next one may. */
export function paceBatch(nextFreeMs: number, nowMs: number, events: number, maxRate: number): { waitMs: number; nextFreeMs: number } {
  const startMs = Math.max(nowMs, nextFreeMs);
  return { waitMs: startMs - nowMs, nextFreeMs: startMs + (events * 1000) / maxRate };
}

/**
 * Events of one window forwarded one by one under summarize: max_rate for each new second, less the ids
 * the checkpoint keeps past the cursor (delivered, or read again, in this window by a run a crash stopped;
 * a finished window keeps none: its ids are kept until the window's end at most).
 */
export function windowBudget(window: TimeWindow, checkpoint: Pick<Checkpoint, 'cursorMs' | 'delivered'>, maxRate: number): number {
  const newMs = window.endMs - Math.max(window.startMs, checkpoint.cursorMs);
  let used = 0;
  for (const keepMs of checkpoint.delivered.values()) if (keepMs > checkpoint.cursorMs) used++;
  return Math.max(0, Math.floor((maxRate * newMs) / 1000) - used);
}

/** One summary record and the events it folds (what the checkpoint and the denied counter take once it is confirmed). */
interface Summary {
  readonly record: LogEvent;
  readonly folded: readonly LogEvent[];
}

interface Group {
  readonly first: LogEvent;
  firstMs: number;
  lastMs: number;
  readonly folded: LogEvent[];
}

const MINUTE_MS = 60_000;

/** The text attribute `name` of an event, or `fallback`. */
function text(event: LogEvent, name: string, fallback: string): string {
  const v = event.attributes[name];
  return typeof v === 'string' ? v : fallback;
}

/**
 * A window's events under summarize: take() passes each event, in the order
 * read, while the budget lasts and folds the rest; summaries() gives the
 * records once the window has been read. Memory: one small record per folded
 * event (its id, time and the few attributes the counters read), for the window.
 */
export class WindowFold {
  private left: number;
  private readonly groups = new Map<string, Group>();
  private readonly held = new Set<string>();

  constructor(budget: number) {
    this.left = budget;
  }

  /** Whether to forward `event` as it is; false: it was folded. */
  take(event: LogEvent): boolean {
    if (this.left > 0) {
      this.left--;
      return true;
    }
    this.fold(event);
    return false;
  }

  /** Whether a folded, not yet confirmed, event has this id (a shifted page may return it again). */
  holds(uid: string): boolean {
    return this.held.has(uid);
  }


  /** The summary records, in key order (the same order for the same events). */
  summaries(): Summary[] {
    return [...this.groups.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, group]) => ({ record: this.record(key, group), folded: group.folded }));
  }

  private fold(event: LogEvent): void {
    const minute = Math.floor(event.timestampMs / MINUTE_MS) * MINUTE_MS;
    const key = [minute, text(event, ATTR.SERVER_ADDRESS, ''), text(event, ATTR.SECURITY_RULE_UUID, ''), text(event, ATTR.CLIENT_ADDRESS, '')].join('\u0000');
    // Only what the denied counter and the rule info read is kept of a folded event.
    const slim = keptOf(event);
    const group = this.groups.get(key);
    if (group === undefined) {
      this.groups.set(key, { first: slim, firstMs: event.timestampMs, lastMs: event.timestampMs, folded: [slim] });
    } else {
      group.firstMs = Math.min(group.firstMs, event.timestampMs);
      group.lastMs = Math.max(group.lastMs, event.timestampMs);
      group.folded.push(slim);
    }
    this.held.add(event.uid);
  }

  private record(key: string, group: Group): LogEvent {
    const { first } = group;
    const attributes: Record<string, LogEvent['attributes'][string]> = { ...first.attributes };
    delete attributes[EDGE_ATTR.SEVERITY_LEVEL];
    attributes[EDGE_ATTR.ACTION] = 'deny';
    attributes[EDGE_ATTR.COUNT] = group.folded.length;
    attributes[EDGE_ATTR.FIRST_TIME] = new Date(group.firstMs).toISOString();
    attributes[EDGE_ATTR.LAST_TIME] = new Date(group.lastMs).toISOString();
    const client = text(first, ATTR.CLIENT_ADDRESS, 'unknown');
    const domain = text(first, ATTR.SERVER_ADDRESS, 'unknown');
    const rule = text(first, ATTR.SECURITY_RULE_UUID, 'none');
    const ids = createHash('sha256').update(key);
    for (const uid of group.folded.map((e) => e.uid).sort()) ids.update(`\u0000${uid}`);
    return {
      uid: `summary-${ids.digest('hex').slice(0, 32)}`,
      timestampMs: group.firstMs,
      observedMs: first.observedMs,
      severity: first.severity,
      severityText: first.severityText,
      eventName: EVENT_NAME.summary,
      body: `${group.folded.length} deny events on ${domain} from ${client} (rule ${rule}) summarized, beyond waf_events.max_rate`,
      attributes,
    };
  }
}
