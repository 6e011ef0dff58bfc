// describeL7MostData -> top-N gauges. Pure. Only the configured top N is
// exported even if the upstream returns more; `__other__` is the item's
// total minus the listed top N, when positive. A dimension whose item is
// missing or has `data: null` yields no series this cycle.
import type { DescribeL7MostDataAnswer } from '../../api/index.js';
import { gaugeSample } from '../series/index.js';
import type { Sample } from '../collector.js';
import { OTHER_KEY } from './metrics.js';

interface TopnConvertInput {
  /** Family fed by the request's mostDimension. */
  readonly family: string;
  readonly dimensions: readonly string[];
  readonly top: number;
  readonly other: boolean;
  /** Start of the window's newest bucket, attached with `timestamps`. */
  readonly bucketStart: number;
  readonly timestamps: boolean;
}

export function convertTopn(answer: DescribeL7MostDataAnswer, input: TopnConvertInput): Sample[] {
  const out: Sample[] = [];
  for (const dimension of input.dimensions) {
    const data = answer.data.find((i) => i.metricName === dimension)?.data;
    if (!data) continue;
    const kept = new Map<string, number>();
    for (const { name, value } of data.list) {
      if (kept.size >= input.top) break;
      // A name listed twice (e.g. "404" and 404) keeps its first value; the rest goes to __other__.
      if (!kept.has(name) && Number.isFinite(value)) kept.set(name, value);
    }
    for (const [key, value] of kept) out.push(gaugeSample(input.family, { dimension, key }, value, input.bucketStart, input.timestamps));
    const listed = [...kept.values()].reduce((a, b) => a + b, 0);
    // Absurd values can overflow the sum; an infinite rest is no count of anything.
    const rest = data.total - listed;
    if (input.other && Number.isFinite(rest) && rest > 0) out.push(gaugeSample(input.family, { dimension, key: OTHER_KEY }, rest, input.bucketStart, input.timestamps));
  }
  return out;
}
