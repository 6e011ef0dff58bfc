// What the WAF event forwarder reports besides the logs: the denied-request
// counter (plain Samples to a SampleSink, kept in the checkpoint so a restart
// continues it) and the self-metrics the daemon exposes, as an observer.
import type { ContractCheck } from '../collectors/contract/checks.js';
import type { AuditOutcome, AuditStats } from './audit.js';
import { counter, gauge } from '../collectors/metric-def.js';
import { CounterTotals } from '../counters/ledger.js';
import { seriesKey } from '../collectors/series/keys.js';
import type { MetricDef } from '../collectors/collector.js';
import type { LogEvent } from './log-sink.js';
import { SEVERITY_LABEL } from '../collectors/waf-trend/metrics.js';
import { ATTR, EDGE_ATTR } from './attributes.js';

/**
 * The forwarder's job name (a job, not a collector: it fills no family from a
 * cycle). As every job's name, it is the `collector` label of what it
 * publishes and the `collector` field of its log lines: those keep their name.
 */
export const WAF_EVENTS_JOB = 'waf-events';

export const WAF_DENIED_REQUESTS = counter('edge_waf_denied_requests_total',
  'Requests the WAF denied (HTTP 417), counted once per event delivered to the OTLP receiver, by domain (the Host ' +
    'header), the primary rule id and severity (high, medium, low). Continues across restarts.',
  'requests', ['domain', 'rule_id', 'severity'], 'describeLogV2',
  'logs list (action deny): request.headers.host, rules[0].ruleId, severityLevel');

export const WAF_RULE_INFO = gauge('edge_waf_rule_info',
  'What a WAF rule id means, for joining on rule_id: value 1, one series per rule id, with the description and ' +
    'category of the latest deny event read whose primary rule it is. A rule absent from targets.forget_after of deny ' +
    'events read is dropped; long descriptions are cut at limits.label_value_length.',
  'info', ['rule_id', 'description', 'category'], 'describeLogV2',
  'logs list (action deny): rules[0].ruleId, rules[0].ruleMessage, rules[0].group');

export const WAF_EVENTS_FAMILIES: readonly MetricDef[] = [WAF_DENIED_REQUESTS, WAF_RULE_INFO];

export type DeniedLabels = Readonly<Record<'domain' | 'rule_id' | 'severity', string>>;

// A Map, not an object: the upstream's text is the key, and `constructor` must not find anything.
const SEVERITY_OF: ReadonlyMap<string, string> = new Map(Object.entries(SEVERITY_LABEL));

/** A label value of one event, from the attributes the converter set. */
function labelText(event: LogEvent, name: string, fallback: string): string {
  const v = event.attributes[name];
  return typeof v === 'string' && v !== '' ? v : fallback;
}

/** Events counted in one series by one add(). */
export interface DeniedDelta {
  readonly labels: DeniedLabels;
  value: number;
}

/** A series of the counter as DeniedCounts finds it again: its labels, its key, and what the current batch added to it. */
interface Series {
  readonly labels: DeniedLabels;
  readonly key: string;
  /** The add() that last counted it, and its delta there. */
  batch: number;
  delta: DeniedDelta;
}

/** A series the cap refused, in the index. */
const REFUSED = 'refused';

/**
 * The denied counter's totals (a CounterTotals: visible once on disk); `cap`
 * bounds the series kept (and so the checkpoint file).
 */
export class DeniedCounts {
  readonly totals = new CounterTotals();
  private droppedEvents = 0;
  /**
   * domain -> rule_id -> severity -> series, for every series of the totals
   * (restored ones too, so at most the cap of them) and as many refused ones
   * at most: an event finds its series by its three label values, with no
   * label object or key string per event (they were most of the counter's
   * cost: ~1,700 domains in a batch of 512 leave little to group within one
   * batch). A series it lacks is new to the totals, so one past the cap is
   * refused without a key.
   */
  private readonly index = new Map<string, Map<string, Map<string, Series | typeof REFUSED>>>();
  /** Refused series the index holds. */
  private refused = 0;
  private batch = 0;

  constructor(private readonly cap: number) {}

  /**
   * Counts the events (within the series cap); returns what it counted, per
   * series in the order of their first event, for the checkpoint's journal.
   * A series new to the totals is admitted at its first event while the cap
   * allows, as counting event by event would: the totals only grow, so a
   * series refused at its first event is refused at every later one.
   */
  add(events: readonly LogEvent[]): DeniedDelta[] {
    this.batch += 1;
    const touched: Series[] = [];
    let admitted = 0;
    for (const event of events) {
      const domain = labelText(event, ATTR.SERVER_ADDRESS, 'unknown');
      const ruleId = labelText(event, ATTR.SECURITY_RULE_UUID, 'none');
      const severity = SEVERITY_OF.get(labelText(event, EDGE_ATTR.SEVERITY_LEVEL, '')) ?? 'unknown';
      let series = this.index.get(domain)?.get(ruleId)?.get(severity);
      if (series === REFUSED) {
        this.droppedEvents += 1;
        continue;
      }
      if (series === undefined) {
        if (this.totals.size + admitted >= this.cap) {
          // Refused for good (the totals only grow). Remembered, up to as many as the cap, so the next event
          // of it costs no lookup past the index; under a flood of new domains the index stays within twice the cap.
          if (this.refused < this.cap) {
            this.refused += 1;
            this.indexed(domain, ruleId).set(severity, REFUSED);
          }
          this.droppedEvents += 1;
          continue;
        }
        admitted++;
        series = this.indexSeries({ domain, rule_id: ruleId, severity });
      }
      if (series.batch !== this.batch) {
        series.batch = this.batch;
        series.delta = { labels: series.labels, value: 0 };
        touched.push(series);
      }
      series.delta.value += 1;
    }
    for (const s of touched) this.totals.add(WAF_DENIED_REQUESTS.name, s.labels, s.delta.value, undefined, s.key);
    return touched.map((s) => s.delta);
  }

  private indexSeries(labels: DeniedLabels): Series {
    const series: Series = { labels, key: seriesKey(WAF_DENIED_REQUESTS.name, labels), batch: 0, delta: { labels, value: 0 } };
    this.indexed(labels.domain, labels.rule_id).set(labels.severity, series);
    return series;
  }

  private indexed(domain: string, ruleId: string): Map<string, Series | typeof REFUSED> {
    let byRule = this.index.get(domain);
    if (byRule === undefined) this.index.set(domain, (byRule = new Map()));
    let bySeverity = byRule.get(ruleId);
    if (bySeverity === undefined) byRule.set(ruleId, (bySeverity = new Map()));
    return bySeverity;
  }

  /** Events not counted because a new series would have passed the cap, since start. */
  get dropped(): number {
    return this.droppedEvents;
  }

  /** For the checkpoint file. */
  entries(): Array<{ labels: DeniedLabels; value: number }> {
    return this.totals.counted().map((e) => ({ labels: deniedOf(e.labels), value: e.value }));
  }

  restore(entries: ReadonlyArray<{ labels: DeniedLabels; value: number }>): void {
    this.index.clear();
    this.refused = 0;
    this.totals.restore(entries.map((e) => ({ name: WAF_DENIED_REQUESTS.name, labels: { ...e.labels }, value: e.value, timestampMs: undefined })));
    for (const e of entries) this.indexSeries(deniedOf(e.labels));
  }
}

function deniedOf(labels: Readonly<Record<string, string>>): DeniedLabels {
  return { domain: labels['domain'] ?? '', rule_id: labels['rule_id'] ?? '', severity: labels['severity'] ?? '' };
}

/**
 * Self-metrics, as plain numbers; the daemon wires them to its Prometheus
 * self-metrics. Counts are increments; an observer that throws is ignored.
 */
export interface WafEventsObserver {
  /** Records the log query returned, duplicates included. */
  onRead?(count: number): void;
  /** Records skipped because their requestId was already delivered (the final pass, a cut window read again, shifted pages). */
  onDeduplicated?(count: number): void;
  /** Events the receiver confirmed. */
  onForwarded?(count: number): void;
  /** Events folded into summary records the receiver confirmed (waf_events.over_rate: summarize). */
  onSummarized?(count: number): void;
  /** A delivery attempt failed (it is retried); `events` were not confirmed, `code` is the error's stable code. */
  onExportFailure?(failure: { readonly events: number; readonly code: string }): void;
  /** After each checkpoint save: the cursor saved, epoch ms (the lag gauge is read against it at every scrape, so it grows while delivery fails). */
  onCheckpoint?(cursorMs: number): void;
  /** Answers whose record times contradicted an assumption (edge_exporter_contract_mismatches_total). */
  onMismatch?(check: ContractCheck, count: number): void;
  /** The delivery audit: buckets found short at a check, or that became final with this outcome. */
  onAuditOutcome?(outcome: AuditOutcome, buckets: number): void;
  /** After each audit check: deny events counted upstream and not delivered, over the buckets not final. */
  onAuditChecked?(state: { readonly missing: number }): void;
  /** Events a recovery delivered, each as how late it was found: seconds from its time to the read that found it. */
  onRecovered?(latenessSeconds: readonly number[]): void;
  /** After each audit check: the overlap (seconds) the last day's recoveries call for (overlap.ts). */
  onOverlapSuggested?(seconds: number): void;
  /** Events a recovery sent again because the ids of their minute were given up (waf_events.audit.max_kept_ids). */
  onResent?(count: number): void;
}

/** Totals since start, for status pages and tests. */
export interface WafEventsStats {
  readonly read: number;
  readonly deduplicated: number;
  readonly forwarded: number;
  /** Events folded into confirmed summary records. */
  readonly summarized: number;
  readonly exportFailures: number;
  readonly checkpointLagSeconds: number | undefined;
  /** Events not counted in the denied counter because its series cap was reached. */
  readonly droppedFromCounter: number;
  /** Deny events whose rule was left out of edge_waf_rule_info because its series cap was reached. */
  readonly droppedFromRuleInfo: number;
  /** The delivery audit, when it runs. */
  readonly audit?: AuditStats;
}
