// totals and bandwidth_unit: what the values of the trend answers say, read
// with the daemon's own helpers (totalsFinding, bandwidthUnitFinding) so the
// doctor and the run-time counter cannot disagree about the same answer.
import { BANDWIDTH_UNITS, bandwidthUnitFinding, type BandwidthUnit } from '../collectors/units.js';
import { totalsFinding } from '../collectors/contract/totals.js';
import { whyNot } from './probe.js';
import type { TrendProbe } from './series.js';
import type { BandwidthPair } from './trends.js';
import { combine, type CheckResult, type Part } from './types.js';

function totalsPart(probe: TrendProbe): Part {
  if (probe.answer.kind !== 'answer') return { verdict: 'unknown', observed: `${probe.label}: ${whyNot(probe.answer)}` };
  const compared = probe.answer.value.totals.filter((t) => t.total !== undefined && t.points !== undefined);
  if (compared.length === 0) return { verdict: 'unknown', observed: `${probe.label}: no total in the answer to compare` };
  // Every point of the answer, not only those up to the range's end: the question is whether the total sums what is shown.
  const finding = compared.map((t) => totalsFinding(t.total, t.points, Number.POSITIVE_INFINITY, t.field)).find((f) => f !== undefined);
  if (finding) return { verdict: 'differs', observed: `${probe.label}: ${finding.seen}` };
  return { verdict: 'ok', observed: `${probe.label}: ${compared.length} total(s) equal the sum of their points` };
}

export function judgeTotals(probes: readonly TrendProbe[]): CheckResult {
  return combine('totals', probes.map(totalsPart), 'nothing to set: the daemon counts the points and never reads totals.');
}

/** Buckets the unit can be judged on: the helper's own bar (traffic of at least 1 byte/s, a positive bandwidth). */
function usableBuckets(pair: BandwidthPair, seconds: number): number {
  const traffic = new Map<number, number>();
  for (const [t, v] of pair.traffic) if (v !== null && v >= 8 * seconds) traffic.set(t, v);
  return pair.bandwidth.filter(([t, v]) => v !== null && v > 0 && traffic.has(t)).length;
}

function bandwidthPart(probe: TrendProbe, unit: BandwidthUnit): Part | undefined {
  if (probe.collector === 'waf_trend') return undefined;
  if (probe.answer.kind !== 'answer') return { verdict: 'unknown', observed: `${probe.label}: ${whyNot(probe.answer)}` };
  const [pair] = probe.answer.value.bandwidth;
  if (pair === undefined) return { verdict: 'unknown', observed: `${probe.label}: no bandwidth and traffic series to compare` };
  const finding = bandwidthUnitFinding(pair.bandwidth, pair.traffic, probe.size, unit, pair.field);
  if (finding) {
    return {
      verdict: 'differs', observed: `${probe.label}: ${finding.seen}`,
      set: finding.suggest === undefined ? [] : [{ key: 'upstream.units.bandwidth', value: finding.suggest }],
    };
  }
  const usable = usableBuckets(pair, probe.size / 1000);
  if (usable < 2) return { verdict: 'unknown', observed: `${probe.label}: too little traffic to judge (${usable} bucket(s) with traffic)` };
  // No finding under the configured unit: confirm it, by asking the helper under another unit and seeing it name this one.
  const other = BANDWIDTH_UNITS.find((u) => u !== unit) ?? unit;
  const back = bandwidthUnitFinding(pair.bandwidth, pair.traffic, probe.size, other, pair.field);
  if (back?.suggest === unit) return { verdict: 'ok', observed: `${probe.label}: bandwidth x seconds matches traffic in ${unit} (${usable} buckets)` };
  return { verdict: 'unknown', observed: `${probe.label}: bandwidth does not match traffic under any listed unit (a peak rather than an average?)` };
}

export function judgeBandwidth(probes: readonly TrendProbe[], unit: BandwidthUnit): CheckResult {
  const parts = probes.flatMap((p) => bandwidthPart(p, unit) ?? []);
  return combine('bandwidth_unit', parts);
}
