import { describe, expect, it } from 'vitest';
import { counterSamples, gaugeSamples, type HistoryInput } from '../../../src/counters/history/samples.js';
import { seriesKey } from '../../../src/collectors/series/keys.js';

const MIN = 60_000;
const T = Date.UTC(2026, 2, 2, 4, 0);
const REQ = 'edge_domain_requests_total';
const A = { domain: 'a.com' };
const B = { domain: 'b.com' };
const kA = seriesKey(REQ, A);
const kB = seriesKey(REQ, B);

const input = (o: Partial<HistoryInput>): HistoryInput => ({ increments: [], watermarks: {}, gauges: new Map(), now: T + 10 * MIN, ...o });
const plain = (samples: readonly { name: string; labels: object; timestampMs: number; value: number }[]) =>
  samples.map(({ name, labels, timestampMs, value }) => ({ name, labels, t: (timestampMs - T) / MIN, value }));

describe('counterSamples', () => {
  it('one sample per counted bucket, at its end, valued at the total after it', () => {
    // Before: A at 100. Three buckets back-filled after an outage: 5, 0, 7.
    const out = counterSamples(
      input({
        increments: [{ name: REQ, labels: A, value: 12 }],
        watermarks: { [kA]: T + 2 * MIN },
        counted: [new Map([[kA, { values: [[T, 5], [T + MIN, 0], [T + 2 * MIN, 7]] as const }]])],
        bucketMs: MIN,
      }),
      (key) => (key === kA ? 100 : undefined),
    );
    expect(plain(out)).toEqual([
      { name: REQ, labels: A, t: 1, value: 105 },
      { name: REQ, labels: A, t: 2, value: 105 },
      { name: REQ, labels: A, t: 3, value: 112 },
    ]);
  });

  it('a new series: its 0 at the end of the last settled bucket', () => {
    const out = counterSamples(
      input({ increments: [{ name: REQ, labels: B, value: 0 }], watermarks: { [kB]: T + 4 * MIN }, counted: [], bucketMs: MIN }),
      () => undefined,
    );
    expect(plain(out)).toEqual([{ name: REQ, labels: B, t: 5, value: 0 }]);
  });

  it('an audit correction is no bucket: it shows in the next bucket, and a second increment of a series adds no sample', () => {
    const out = counterSamples(
      input({
        // The bucket's increment, then the audit's +3 for an older bucket.
        increments: [{ name: REQ, labels: A, value: 4 }, { name: REQ, labels: A, value: 3 }, { name: REQ, labels: B, value: 2 }],
        watermarks: { [kA]: T },
        counted: [new Map([[kA, { values: [[T, 4]] as const }]])],
        bucketMs: MIN,
      }),
      (key) => (key === kA ? 10 : key === kB ? 50 : undefined),
    );
    // A: 10 + 4 at the bucket's end (the +3 joins the total and shows next time); B: a correction only, no sample.
    expect(plain(out)).toEqual([{ name: REQ, labels: A, t: 1, value: 14 }]);
  });

  it('a collector without buckets (no bucketMs) pushes no counter', () => {
    expect(counterSamples(input({ increments: [{ name: REQ, labels: A, value: 1 }], watermarks: { [kA]: T } }), () => 0)).toEqual([]);
  });
});

describe('gaugeSamples', () => {
  const BW = 'edge_domain_bandwidth_bytes_per_second';
  it('the bucket start, else the timestamp, else the collection time; only newer than the series\' last', () => {
    const gauges = new Map([
      [BW, [
        { name: BW, labels: A, value: 1, bucketStartMs: T + 3 * MIN },
        { name: BW, labels: B, value: 2, bucketStartMs: T + 3 * MIN },
      ]],
      ['edge_domain_info', [{ name: 'edge_domain_info', labels: A, value: 1 }]],
    ]);
    const last = new Map([[seriesKey(BW, A), T + 3 * MIN], [seriesKey(BW, B), T + 2 * MIN]]);
    const out = gaugeSamples(input({ gauges }), (key) => last.get(key));
    expect(plain(out)).toEqual([
      { name: BW, labels: B, t: 3, value: 2 },
      { name: 'edge_domain_info', labels: A, t: 10, value: 1 },
    ]);
    expect(out.map((s) => s.gaugeFamily)).toEqual([BW, 'edge_domain_info']);
  });
});
