// WAF log events, generated deterministically per (seed, domain, minute) and
// never stored. Each event has an ingest lag of 0-90 s (configurable: wafIngestLagMs) and becomes visible to
// the log query only once now >= timeStamp + lag, as late-arriving log lines do
// in a real search cluster. The wafLateIngest reading makes some deny records
// far later; visibility() is the one place that decides, so the query's logs
// and logTread and the ground truth cannot disagree.
import type { WafLateIngest } from './readings.js';
import { hash32, Rng, unit } from './rng.js';
import {
  BENIGN_URIS, GEOS, PASS_CODES, RULES, SEVERITY_ORDER, USER_AGENTS,
  type GeoSpec, type RuleSpec, type SeverityLevel, type UaSpec,
} from './waf-catalog.js';
import { ArgumentError, InternalError } from '../shared/errors.js';

const MINUTE_MS = 60_000;
// Candidate lists, computed once: the generator runs for every event of every query.
// Any rule may deny, so denies of every documented severity (high, medium, low) occur.
const DENY_RULES = RULES;
const PASS_RULES = RULES.filter((x) => x.severityLevel !== '高风险');
const LOW_RULES = RULES.filter((x) => x.severityLevel === '低风险');
const TOOL_AGENTS = USER_AGENTS.filter((u) => !u.parsed);
/** Default upper bound of the ingest lag (SimulatorOptions.wafIngestLagMs). */
const MAX_INGEST_LAG_MS = 90_000;
/** The documented meaning of action=deny: the response status is 417. */
export const DENY_STATUS = 417;

export interface WafRule {
  ruleId: string;
  ruleMessage: string;
  group: string;
  severity: string;
  severityLevel: SeverityLevel;
  match?: { variable: string; value: string; operator: string };
}

/** The log record exactly as describeLogV2 serves it (ResultRequestDetail). */
export interface WafRecord {
  oid: string;
  requestId: string;
  wafId: string;
  clientIp: string;
  hostPort: number;
  timeStamp: string;
  severityLevel: SeverityLevel;
  ua: UaSpec['parsed'];
  response: { httpCode: number };
  geoip: GeoSpec;
  request: { method: string; uri: string; headers: Record<string, string> };
  rules: WafRule[];
}

export interface WafEvent {
  readonly domain: string;
  /** Request time, epoch ms. */
  readonly time: number;
  /** Usual ingest lag: visible from time + lagMs unless the wafLateIngest reading makes it late (see visibility()). */
  readonly lagMs: number;
  readonly record: WafRecord;
}

export interface WafVisibility {
  /** Epoch ms from which the log query (logs and logTread) shows the event. */
  readonly visibleFrom: number;
  /** Whether the wafLateIngest reading chose it (then visibleFrom is time + a lateness in [minMs, maxMs]). */
  readonly late: boolean;
}

interface WafDomain {
  readonly domainName: string;
  readonly doid: string;
  readonly wafId: string;
  readonly isActive: string;
}

interface EventScope {
  /** Only these domains ([] or absent: all). */
  readonly domains?: readonly string[];
  /** Only events ingested by then (visibility().visibleFrom <= visibleAt). */
  readonly visibleAt?: number;
}

interface WafLogOptions {
  seed: number;
  domains: readonly WafDomain[];
  /** Platform offset in minutes east of UTC, used in timeStamp. */
  offsetMinutes: number;
  /** Largest ingest lag, ms (default MAX_INGEST_LAG_MS). */
  maxIngestLagMs?: number;
  /** The wafLateIngest reading, read per query (readings change at run time; default: none). */
  lateIngest?: () => WafLateIngest | undefined;
}

export class WafLog {
  private readonly seed: number;
  private readonly domains: ReadonlyArray<WafDomain & { readonly index: number; readonly rate: number }>;
  private readonly offsetMinutes: number;
  private readonly maxLagMs: number;
  private readonly lateIngest: () => WafLateIngest | undefined;

  constructor(options: WafLogOptions) {
    this.seed = options.seed;
    this.lateIngest = options.lateIngest ?? (() => undefined);
    this.offsetMinutes = options.offsetMinutes;
    this.maxLagMs = options.maxIngestLagMs ?? MAX_INGEST_LAG_MS;
    if (!Number.isSafeInteger(this.maxLagMs) || this.maxLagMs < 0) throw new ArgumentError(`WAF ingest lag must be a non-negative integer of ms, got ${this.maxLagMs}`);
    this.domains = options.domains.map((d, index) => ({ ...d, index, rate: 1 + (hash32(options.seed, d.domainName, 'waf-rate') % 4) }));
  }

  domainNames(): string[] {
    return this.domains.map((d) => d.domainName);
  }

  /**
   * Events with time in [from, to), optionally of some domains and only those
   * visible at `visibleAt`; sorted by time ascending, then requestId.
   */
  events(from: number, to: number, opts: EventScope = {}): WafEvent[] {
    const out: WafEvent[] = [];
    this.forEach(from, to, opts, (e) => out.push(e));
    return out.sort((a, b) => a.time - b.time || compare(a.record.requestId, b.record.requestId));
  }

  /** When the log query shows `e` under the current wafLateIngest reading. */
  visibility(e: WafEvent): WafVisibility {
    return visibility(e, this.lateIngest());
  }

  /** Visits the same events as events() without collecting them (order: by domain, then time). */
  forEach(from: number, to: number, opts: EventScope, visit: (e: WafEvent) => void): void {
    const wanted = opts.domains && opts.domains.length > 0 ? new Set(opts.domains) : undefined;
    const late = this.lateIngest();
    for (const d of this.domains) {
      if (wanted && !wanted.has(d.domainName)) continue;
      for (let m = Math.floor(from / MINUTE_MS) * MINUTE_MS; m < to; m += MINUTE_MS) {
        for (const e of this.minute(d, m)) {
          if (e.time < from || e.time >= to) continue;
          if (opts.visibleAt !== undefined && visibility(e, late).visibleFrom > opts.visibleAt) continue;
          visit(e);
        }
      }
    }
  }

  private minute(d: WafDomain & { index: number; rate: number }, start: number): WafEvent[] {
    if (d.isActive !== '1') return [];
    const minuteIndex = start / MINUTE_MS;
    const r = new Rng(hash32(this.seed, d.domainName, 'waf', minuteIndex));
    const count = r.int(0, d.rate);
    return Array.from({ length: count }, (_, i) => this.event(r, d, start, `${minuteIndex.toString(16)}${d.index.toString(16).padStart(3, '0')}${i}`));
  }

  private event(r: Rng, d: WafDomain, minuteStart: number, unique: string): WafEvent {
    const time = minuteStart + r.int(0, MINUTE_MS - 1);
    // One draw whatever the bound, so a different bound changes lags only, not the events.
    const lagMs = r.int(0, this.maxLagMs);
    const deny = r.chance(0.4);
    const primary = r.pick(deny ? DENY_RULES : PASS_RULES);
    const extra = r.chance(0.3) ? r.pick(LOW_RULES) : undefined;
    const rules = [primary, ...(extra && extra !== primary ? [extra] : [])];
    const ua = primary.group === 'attack-reputation-scanner' ? r.pick(TOOL_AGENTS) : r.pick(USER_AGENTS);
    const ipIndex = r.int(0, 63);
    return {
      domain: d.domainName,
      time,
      lagMs,
      record: {
        oid: d.doid,
        requestId: `${hash32(this.seed, d.domainName, unique).toString(16).padStart(8, '0')}${unique}`,
        wafId: d.wafId,
        clientIp: `${['203.0.113', '198.51.100', '192.0.2'][ipIndex % 3]}.${10 + ipIndex}`,
        hostPort: r.chance(0.7) ? 443 : 80,
        timeStamp: isoWithOffset(time, this.offsetMinutes),
        severityLevel: highest(rules),
        ua: ua.parsed,
        response: { httpCode: deny ? DENY_STATUS : r.pick(PASS_CODES) },
        // Location follows the client address so one IP always has one place.
        geoip: at(GEOS, ipIndex),
        request: { method: r.chance(0.8) ? 'GET' : 'POST', uri: primary.uri ?? r.pick(BENIGN_URIS), headers: headers(r, d.domainName, ua, rules) },
        rules: rules.map(toRule),
      },
    };
  }
}

/**
 * Under wafLateIngest a deny record is late when a hash of its requestId (which
 * already folds in the seed) falls under the fraction: the same records
 * whatever the query or its order, and a larger fraction only adds records.
 * Its lateness is a second hash spread over [minMs, maxMs].
 */
function visibility(e: WafEvent, late: WafLateIngest | undefined): WafVisibility {
  const id = e.record.requestId;
  if (late === undefined || e.record.response.httpCode !== DENY_STATUS || unit('late-ingest', id) >= late.fraction) {
    return { visibleFrom: e.time + e.lagMs, late: false };
  }
  const lateness = late.minMs + Math.floor(unit('late-ingest-ms', id) * (late.maxMs - late.minMs + 1));
  return { visibleFrom: e.time + lateness, late: true };
}

/** Headers include credentials at times, so tests can check the exporter drops them. */
function headers(r: Rng, host: string, ua: UaSpec, rules: readonly RuleSpec[]): Record<string, string> {
  const h: Record<string, string> = { host };
  if (!rules.some((x) => x.ruleId === '920320')) h['user-agent'] = ua.header;
  if (!rules.some((x) => x.ruleId === '920300')) h.accept = '*/*';
  if (r.chance(0.3)) h.cookie = `sessionid=sim${r.int(100000, 999999)}; theme=dark`;
  if (r.chance(0.1)) h.authorization = `Bearer sim-secret-${r.int(100000, 999999)}`;
  return h;
}

function toRule(x: RuleSpec): WafRule {
  const rule: WafRule = { ruleId: x.ruleId, ruleMessage: x.ruleMessage, group: x.group, severity: x.severity, severityLevel: x.severityLevel };
  if (x.match) rule.match = { ...x.match };
  return rule;
}

function highest(rules: readonly RuleSpec[]): SeverityLevel {
  return rules.reduce<SeverityLevel>(
    (acc, x) => (SEVERITY_ORDER.indexOf(x.severityLevel) > SEVERITY_ORDER.indexOf(acc) ? x.severityLevel : acc), '低风险');
}

function at<T>(items: readonly T[], i: number): T {
  const item = items[i % items.length];
  if (item === undefined) throw new InternalError('empty catalog');
  return item;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** ISO 8601 with milliseconds and the platform offset, e.g. 2026-03-01T12:34:56.789+08:00. */
export function isoWithOffset(ms: number, offsetMinutes: number): string {
  const local = naiveIso(ms, offsetMinutes);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** The platform wall-clock time without an offset, e.g. 2026-03-01T12:34:56.789 (the naiveTimestamps reading). */
export function naiveIso(ms: number, offsetMinutes: number): string {
  return new Date(ms + offsetMinutes * MINUTE_MS).toISOString().slice(0, 23);
}
