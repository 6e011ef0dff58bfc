// The account the push benchmarks count (bench/remote-write.ts,
// bench/otlp-metrics.ts): the access collector's 15 series per domain (8
// counters, 7 gauges) at 1-minute buckets, one bucket per cycle, applied to a
// CounterLedger as the poller applies a cycle. One definition, so both
// benchmarks push the same buckets.
import { accessCounters } from '../../src/collectors/access/convert.js';
import { DOMAIN_BANDWIDTH, DOMAIN_BANDWIDTH_P95, DOMAIN_BANDWIDTH_PEAK, DOMAIN_REQUEST_TIME, SOURCES } from '../../src/collectors/access/metrics.js';
import type { CollectOutput, Sample } from '../../src/collectors/collector.js';
import type { CounterLedger } from '../../src/counters/ledger.js';
import { value as spread } from './series.js';

export const MIN = 60_000;
/** The first bucket's start. */
const T0 = Date.UTC(2026, 2, 2, 4, 0);

/** One access cycle counting the bucket at minute `m`: 8 counters (one bucket each) and 7 gauges per domain. */
export function cycleOutput(domains: readonly string[], m: number): CollectOutput {
  const bucket = T0 + m * MIN;
  const increments: Sample[] = [];
  const watermarks: Record<string, number> = {};
  const counted = new Map<string, { values: Array<readonly [number, number]> }>();
  for (const [i, domain] of domains.entries()) {
    for (const [k, spec] of accessCounters(domain).entries()) {
      const v = spread(i * 17 + k + m, spec.family.includes('bytes') ? 1e9 : 1e5, false);
      increments.push({ name: spec.family, labels: spec.labels, value: v });
      watermarks[spec.key] = bucket;
      counted.set(spec.key, { values: [[bucket, v]] });
    }
  }
  const gauges = new Map<string, Sample[]>();
  for (const def of [DOMAIN_BANDWIDTH, DOMAIN_BANDWIDTH_PEAK, DOMAIN_BANDWIDTH_P95]) {
    gauges.set(def.name, domains.flatMap((domain, i) => SOURCES.map((source, s) => ({ name: def.name, labels: { domain, source }, value: spread(i * 31 + s + m, 1e9, false), bucketStartMs: bucket }))));
  }
  gauges.set(DOMAIN_REQUEST_TIME.name, domains.map((domain, i) => ({ name: DOMAIN_REQUEST_TIME.name, labels: { domain }, value: spread(i + m, 2000, false) / 1000, bucketStartMs: bucket })));
  return { increments, watermarks, gauges, errors: [], counted: [counted], bucketMs: MIN };
}

/** Applies the cycle of minute `m` as the poller does, three minutes after its bucket started (the upstream's delay). */
export function applyCycle(ledger: CounterLedger, out: CollectOutput, m: number): void {
  ledger.apply('access', out, { gauges: out.gauges, now: T0 + (m + 3) * MIN, counted: out.counted ?? [], bucketMs: MIN });
}

/** Samples a cycle hands remote-write (8 counters and 7 gauges per domain): what a steady cycle pushes. */
export function samplesOf(out: CollectOutput): number {
  return out.increments.length + [...out.gauges.values()].reduce((n, g) => n + g.length, 0);
}
