// What the WAF event forwarder reports besides the logs: the denied-request
// counter (plain Samples to a SampleSink, kept in the checkpoint so a restart
// continues it) and the self-metrics the daemon exposes, as an observer.
import type { ContractCheck } from '../contract/checks.js';
import { counter, gauge } from '../metric-def.js';
import { CounterTotals } from '../ledger.js';
import type { MetricDef } from '../collector.js';
import type { LogEvent } from '../log-sink.js';
import { SEVERITY_LABEL } from '../waf-trend/metrics.js';
import { ATTR, EDGE_ATTR } from './attributes.js';

/** Collector name: the `collector` of SampleSink.publish and of log lines. */
export const WAF_EVENTS_COLLECTOR = 'waf-events';

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

/** The counter's labels of one event, from the attributes the converter set. */
function deniedLabels(event: LogEvent): DeniedLabels {
  const text = (name: string, fallback: string): string => {
    const v = event.attributes[name];
    return typeof v === 'string' && v !== '' ? v : fallback;
  };
  const severities: Readonly<Record<string, string>> = SEVERITY_LABEL;
  return {
    domain: text(ATTR.SERVER_ADDRESS, 'unknown'),
    rule_id: text(ATTR.SECURITY_RULE_UUID, 'none'),
    severity: severities[text(EDGE_ATTR.SEVERITY_LEVEL, '')] ?? 'unknown',
  };
}

/**
 * The denied counter's totals (a CounterTotals: visible once on disk); `cap`
 * bounds the series kept (and so the checkpoint file).
 */
/** Events counted in one series by one add(). */
export interface DeniedDelta {
  readonly labels: DeniedLabels;
  value: number;
}

export class DeniedCounts {
  readonly totals = new CounterTotals();
  private droppedEvents = 0;

  constructor(private readonly cap: number) {}

  /** Counts the events (within the series cap); returns what it counted, per series, for the checkpoint's journal. */
  add(events: readonly LogEvent[]): DeniedDelta[] {
    const counted = new Map<string, DeniedDelta>();
    for (const event of events) {
      const labels = deniedLabels(event);
      if (this.totals.size < this.cap || this.totals.has(WAF_DENIED_REQUESTS.name, labels)) {
        this.totals.add(WAF_DENIED_REQUESTS.name, labels, 1);
        const key = `${labels.domain}\u0000${labels.rule_id}\u0000${labels.severity}`;
        const delta = counted.get(key);
        if (delta) delta.value += 1;
        else counted.set(key, { labels, value: 1 });
      } else {
        this.droppedEvents += 1;
      }
    }
    return [...counted.values()];
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
    this.totals.restore(entries.map((e) => ({ name: WAF_DENIED_REQUESTS.name, labels: { ...e.labels }, value: e.value, timestampMs: undefined })));
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
  /** Records skipped because their requestId was already delivered (window overlap, shifted pages). */
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
}
