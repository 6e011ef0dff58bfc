// The units the upstream answers in, where the document does not say and the
// data cannot always decide (upstream.units). The metrics use base units:
// bytes per second and seconds. One check can tell the bandwidth unit from the
// data: bandwidth x bucket seconds must equal the traffic of the same bucket
// (the simulator's bandwidth is bytes x 8 / seconds), so a ratio near another
// unit's factor names the unit to set.
import type { RawPoint } from './buckets.js';
import { BANDWIDTH_UNITS, DEFAULT_UNITS, type BandwidthUnit, type RequestTimeUnit } from '../config/sections/units.js';
import type { Mismatch } from './contract/checks.js';

export { BANDWIDTH_UNITS, DEFAULT_UNITS, type BandwidthUnit, type RequestTimeUnit };

const BYTES_PER_SECOND: Readonly<Record<BandwidthUnit, number>> = {
  bits_per_second: 1 / 8,
  bytes_per_second: 1,
  kilobits_per_second: 1000 / 8,
  megabits_per_second: 1_000_000 / 8,
};

export function toBytesPerSecond(value: number, unit: BandwidthUnit): number {
  return value * BYTES_PER_SECOND[unit];
}

export function toSeconds(value: number, unit: RequestTimeUnit): number {
  return unit === 'milliseconds' ? value / 1000 : value;
}

/** How far off a unit may be and still count as right: floors and partial buckets stay well inside it. */
const TOLERANCE = 0.2;

/**
 * Holds bandwidth against traffic bucket by bucket (same answer, same
 * buckets). Undefined when they agree under `unit`, when too few buckets
 * carry traffic to judge, or when no listed unit explains the ratio (a
 * bandwidth that is a peak rather than an average, say).
 */
export function bandwidthUnitFinding(
  bandwidth: readonly RawPoint[], traffic: readonly RawPoint[], bucketMs: number, unit: BandwidthUnit, field: string,
): Mismatch | undefined {
  const seconds = bucketMs / 1000;
  const bytes = new Map<number, number>();
  for (const [t, v] of traffic) if (v !== null && v >= 8 * seconds) bytes.set(t, v);
  const ratios: number[] = [];
  for (const [t, v] of bandwidth) {
    const b = bytes.get(t);
    if (b === undefined || v === null || !(v > 0)) continue;
    ratios.push(b / (toBytesPerSecond(v, unit) * seconds));
  }
  if (ratios.length < 2) return undefined;
  ratios.sort((a, b) => a - b);
  const median = ratios[Math.floor(ratios.length / 2)] ?? 1;
  if (Math.abs(median - 1) <= TOLERANCE) return undefined;
  const fits = BANDWIDTH_UNITS.find((u) => u !== unit && Math.abs((median * BYTES_PER_SECOND[unit]) / BYTES_PER_SECOND[u] - 1) <= TOLERANCE);
  if (fits === undefined) return undefined;
  return {
    check: 'bandwidth_unit', field,
    assumed: `bandwidth in ${unit}: bandwidth x ${seconds}s equals the bucket's traffic`,
    seen: `traffic / (bandwidth x seconds) = ${median.toPrecision(3)} (median of ${ratios.length} buckets), what ${fits} would give`,
    configKey: 'upstream.units.bandwidth', suggest: fits,
  };
}
