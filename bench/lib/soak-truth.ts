// What the soak's counters and forwarded WAF events must be, from the
// simulator's ground truth, and the comparison with what the daemon exposed
// and delivered. Counters are compared as exact integers, series by series;
// a counter starts at 0 on the first cycle with its watermark on that cycle's
// last settled bucket, so it holds the settled buckets after that one up to
// the last cycle's last settled bucket (as test/integration/prometheus.test.ts
// reasons).
import { DOMAIN_REQUESTS, DOMAIN_RESPONSES, DOMAIN_TRAFFIC_BYTES } from '../../src/collectors/access/metrics.js';
import { CC_ATTACK_REQUESTS } from '../../src/collectors/cc-attack/metrics.js';
import { PACKAGE_TRAFFIC_BYTES } from '../../src/collectors/usage/metrics.js';
import { WAF_DENIED_REQUESTS } from '../../src/forwarder/metrics.js';
import { SEVERITY_LABEL, WAF_EVENTS } from '../../src/collectors/waf-trend/metrics.js';
import type { Simulator } from '../../src/simulator/index.js';
import type { StatMetric } from '../../src/simulator/stats.js';
import type { WafEvent } from '../../src/simulator/waf.js';
import { sampleKey, type ScrapedSample } from './exposition.js';

const DENY_STATUS = 417;

/** Bucket starts [from, to) every bucketed collector counted. */
interface CountedRange {
  readonly from: number;
  readonly to: number;
}

/** The counter families the soak checks, with every series they must have. */
export const CHECKED_FAMILIES: ReadonlySet<string> = new Set([
  DOMAIN_TRAFFIC_BYTES.name, DOMAIN_REQUESTS.name, DOMAIN_RESPONSES.name, PACKAGE_TRAFFIC_BYTES.name, CC_ATTACK_REQUESTS.name,
  WAF_EVENTS.name, WAF_DENIED_REQUESTS.name,
]);

const ACCESS: ReadonlyArray<readonly [string, Record<string, string>, StatMetric]> = [
  [DOMAIN_TRAFFIC_BYTES.name, { source: 'edge' }, 'bytesSent'],
  [DOMAIN_TRAFFIC_BYTES.name, { source: 'origin' }, 'upstreamBytesSent'],
  [DOMAIN_REQUESTS.name, {}, 'requests'],
  ...(['1xx', '2xx', '3xx', '4xx', '5xx'] as const).map((c) => [DOMAIN_RESPONSES.name, { code_class: c }, `status${c}` as StatMetric] as const),
];

const severityOf = (e: WafEvent): string => SEVERITY_LABEL[e.record.severityLevel];
const isDeny = (e: WafEvent): boolean => e.record.response.httpCode === DENY_STATUS;

/** Expected value of every checked series; usage packages as exposed (an l4 package is asked for as the simulator answers it). */
export function expectedCounters(sim: Simulator, range: CountedRange, packages: readonly string[], delivered: readonly WafEvent[]): Map<string, number> {
  const { truth, world } = sim;
  const out = new Map<string, number>();
  const set = (name: string, labels: Record<string, string>, value: number): void => void out.set(sampleKey(name, labels), value);
  for (const domain of truth.domains()) {
    for (const [name, labels, metric] of ACCESS) set(name, { domain, ...labels }, truth.domainTotal(domain, metric, range.from, range.to));
  }
  for (const pkg of packages) {
    // As the simulator resolves an oid: an l7 package's domains, else the name itself.
    const l7 = world.l7Packages.some((p) => p.alias === pkg);
    const domains = l7 ? world.domains.filter((d) => d.doid === pkg).map((d) => d.domainName) : [pkg];
    set(PACKAGE_TRAFFIC_BYTES.name, { package: pkg, direction: 'in' }, domains.length === 0 ? 0 : truth.total('inBytes', range.from, range.to, domains));
    set(PACKAGE_TRAFFIC_BYTES.name, { package: pkg, direction: 'out' }, domains.length === 0 ? 0 : truth.total('bytesSent', range.from, range.to, domains));
  }
  set(CC_ATTACK_REQUESTS.name, {}, truth.total('ccAttacks', range.from, range.to));
  for (const action of ['deny', 'pass'] as const) for (const severity of Object.values(SEVERITY_LABEL)) set(WAF_EVENTS.name, { action, severity }, 0);
  for (const e of truth.wafEvents(range.from, range.to)) {
    const key = sampleKey(WAF_EVENTS.name, { action: isDeny(e) ? 'deny' : 'pass', severity: severityOf(e) });
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  for (const e of delivered) {
    const labels = { domain: e.domain, rule_id: e.record.rules[0]?.ruleId ?? 'none', severity: severityOf(e) };
    const key = sampleKey(WAF_DENIED_REQUESTS.name, labels);
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

/** Differences between the exposed checked series and the expected ones; empty when every series matches exactly. */
export function compareCounters(scraped: readonly ScrapedSample[], expected: ReadonlyMap<string, number>): string[] {
  const got = new Map(scraped.map((s) => [sampleKey(s.name, s.labels), s.value]));
  const out: string[] = [];
  for (const [key, want] of expected) {
    const value = got.get(key);
    // A WAF trend series with no event yet, or an unseen denied series, is absent rather than 0.
    if (value === undefined && want === 0) continue;
    if (value !== want) out.push(`${key}: exposed ${value ?? 'nothing'}, truth ${want}`);
  }
  for (const [key, value] of got) if (!expected.has(key)) out.push(`${key}: exposed ${value}, not expected at all`);
  return out;
}

export interface WafCheck {
  /** Deny events of [originMs, cursorMs). */
  readonly expected: number;
  /** Records the receiver accepted, duplicates included. */
  readonly received: number;
  readonly missing: readonly string[];
  /** Extra copies beyond the first. */
  readonly duplicates: number;
  readonly passEvents: number;
  /** Received uids that are no event of the range at all. */
  readonly unknown: readonly string[];
  /** The deny events of the range, for the denied counter. */
  readonly deny: readonly WafEvent[];
}

/** Every deny event of the forwarded range exactly once by log.record.uid, and nothing else. */
export function checkWaf(sim: Simulator, uids: readonly string[], originMs: number, cursorMs: number): WafCheck {
  const events = sim.truth.wafEvents(originMs, cursorMs);
  const deny = events.filter(isDeny);
  const pass = new Set(events.filter((e) => !isDeny(e)).map((e) => e.record.requestId));
  const counts = new Map<string, number>();
  for (const uid of uids) counts.set(uid, (counts.get(uid) ?? 0) + 1);
  const wanted = new Set(deny.map((e) => e.record.requestId));
  return {
    expected: deny.length,
    received: uids.length,
    missing: [...wanted].filter((uid) => !counts.has(uid)),
    duplicates: [...counts.values()].reduce((sum, n) => sum + n - 1, 0),
    passEvents: [...counts.keys()].filter((uid) => pass.has(uid)).length,
    unknown: [...counts.keys()].filter((uid) => !wanted.has(uid) && !pass.has(uid)),
    deny,
  };
}
