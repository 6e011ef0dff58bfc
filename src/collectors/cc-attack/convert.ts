// Parsed describeL7CCAttack answers -> the attack counter's series (counted
// by the driver, series/collect.ts) and the summary-window gauges. Pure.
import { gaugeSample, seriesKey, type Converted, type CounterSpec, type TargetConvertInput } from '../series/index.js';
import type { Sample } from '../collector.js';
import type { CcParsed, Ranked } from './parse.js';
import {
  CC_ATTACK_PEAK_REQUESTS, CC_ATTACK_REQUESTS, CC_ATTACKED_DOMAINS, CC_TOP_DOMAIN_ATTACK_REQUESTS, CC_TOP_USER_AGENT_ATTACK_REQUESTS,
} from './metrics.js';

export type CcMetric = 'ccPolicyTrend' | 'attack_detail' | 'domain' | 'http_user_agent';

/** The counter series: account-wide (no labels), or one domain's. */
export function ccCounter(domain?: string): CounterSpec<CcParsed> {
  const labels: Record<string, string> = domain === undefined ? {} : { domain };
  return { family: CC_ATTACK_REQUESTS.name, labels, key: seriesKey(CC_ATTACK_REQUESTS.name, labels), metric: 'ccPolicyTrend', points: (r) => r.trend };
}

const GAUGE_METRIC: ReadonlyArray<readonly [string, CcMetric]> = [
  [CC_ATTACKED_DOMAINS.name, 'attack_detail'],
  [CC_ATTACK_PEAK_REQUESTS.name, 'attack_detail'],
  [CC_TOP_DOMAIN_ATTACK_REQUESTS.name, 'domain'],
  [CC_TOP_USER_AGENT_ATTACK_REQUESTS.name, 'http_user_agent'],
];

/** metricNames of a request: ccPolicyTrend for the counter, plus (main request only) those feeding enabled gauges. */
export function ccMetrics(counter: boolean, gaugeFamilies: readonly string[]): CcMetric[] {
  const wanted = new Set<CcMetric>(counter ? ['ccPolicyTrend'] : []);
  for (const [family, metric] of GAUGE_METRIC) if (gaugeFamilies.includes(family)) wanted.add(metric);
  return (['ccPolicyTrend', 'attack_detail', 'domain', 'http_user_agent'] as const).filter((m) => wanted.has(m));
}

interface CcGaugeInput {
  /** Start of the newest bucket of the summary window, attached with `timestamps`. */
  readonly windowBucket: number;
  readonly timestamps: boolean;
  readonly families: readonly string[];
}

export function ccGauges(main: CcParsed, input: CcGaugeInput): Sample[] {
  const out: Sample[] = [];
  const add = (family: string, labels: Record<string, string>, value: number | undefined): void => {
    if (value !== undefined && input.families.includes(family)) out.push(gaugeSample(family, labels, value, input.windowBucket, input.timestamps));
  };
  add(CC_ATTACKED_DOMAINS.name, {}, main.detail?.attackedDomains);
  add(CC_ATTACK_PEAK_REQUESTS.name, {}, main.detail?.peakRequests);
  const ranking = (family: string, label: string, list: readonly Ranked[] | undefined): void => {
    const seen = new Set<string>();
    for (const { name, value } of list ?? []) {
      // A name listed twice would make two series with one label set; the first is kept.
      if (seen.has(name)) continue;
      seen.add(name);
      add(family, { [label]: name }, value);
    }
  };
  ranking(CC_TOP_DOMAIN_ATTACK_REQUESTS.name, 'domain', main.domains);
  ranking(CC_TOP_USER_AGENT_ATTACK_REQUESTS.name, 'user_agent', main.userAgents);
  return out;
}

type CcConvertInput = TargetConvertInput<CcParsed, CcGaugeInput>;

export function convertCc(input: CcConvertInput): Converted {
  return { gauges: input.main === undefined ? [] : ccGauges(input.main, input.gauges), findings: [] };
}
