import { describe, expect, it } from 'vitest';
import type { SavedCounters, Sample } from '../../../src/collectors/collector.js';
import { FamilyStore, type SampleRejectReason } from '../../../src/exporters/prometheus/family-store.js';
import { MetricDefinitionError } from '../../../src/exporters/prometheus/naming.js';
import { def, sample } from './fixtures.js';
import { ArgumentError } from '../../../src/shared/errors.js';

const requests = def('edge_domain_requests_total', 'counter', ['domain'], 'requests');
const traffic = def('edge_domain_traffic_bytes_total', 'counter', ['domain', 'source'], 'bytes');
const topn = def('edge_topn_requests', 'gauge', ['dimension', 'key'], 'requests');
const bandwidth = def('edge_domain_bandwidth_bytes_per_second', 'gauge', ['domain'], 'bytes_per_second');

const DEFS = [requests, traffic, topn, bandwidth];

function store(options?: ConstructorParameters<typeof FamilyStore>[0]): FamilyStore {
  const s = new FamilyStore(options);
  s.define(DEFS);
  return s;
}

const noGauges = new Map<string, readonly Sample[]>();
const gauges = (name: string, samples: readonly Sample[]) => new Map([[name, samples]]);

/** family -> "label values=value" lines, for compact expectations. */
function listed(s: FamilyStore, family: string): string[] {
  const f = s.snapshot().find((x) => x.def.name === family);
  return (f?.series ?? []).map((x) => `${x.labelValues.join(',')}=${x.value}`);
}

describe('FamilyStore.publish', () => {
  it('stores counters as the absolute values given, replacing the previous ones', () => {
    const s = store();
    s.publish('access', { counters: [sample(requests.name, { domain: 'a' }, 10)], gauges: noGauges });
    s.publish('access', { counters: [sample(requests.name, { domain: 'a' }, 15), sample(requests.name, { domain: 'b' }, 1)], gauges: noGauges });
    expect(listed(s, requests.name)).toEqual(['a=15', 'b=1']);
  });

  it("replaces all of the collector's counter series: a counter family it no longer sends is emptied", () => {
    const s = store();
    s.publish('access', {
      counters: [sample(requests.name, { domain: 'a' }, 1), sample(traffic.name, { domain: 'a', source: 'edge' }, 5)],
      gauges: noGauges,
    });
    s.publish('access', { counters: [sample(requests.name, { domain: 'a' }, 2)], gauges: noGauges });
    expect(listed(s, requests.name)).toEqual(['a=2']);
    expect(listed(s, traffic.name)).toEqual([]);
  });

  it('replaces a gauge family wholesale: a top-N key that drops out disappears', () => {
    const s = store();
    const top = (keys: string[]) => keys.map((key, i) => sample(topn.name, { dimension: 'url', key }, 100 - i));
    s.publish('topn', { counters: [], gauges: gauges(topn.name, top(['/a', '/b', '/c'])) });
    s.publish('topn', { counters: [], gauges: gauges(topn.name, top(['/c', '/d'])) });
    expect(listed(s, topn.name)).toEqual(['url,/c=100', 'url,/d=99']);
  });

  it('leaves gauge families not in the update as they were', () => {
    const s = store();
    s.publish('inv', { counters: [], gauges: gauges(bandwidth.name, [sample(bandwidth.name, { domain: 'a' }, 3)]) });
    s.publish('inv', { counters: [], gauges: new Map() });
    expect(listed(s, bandwidth.name)).toEqual(['a=3']);
  });

  it('keeps a family with the collector that first published it', () => {
    const s = store();
    s.publish('one', { counters: [], gauges: gauges(bandwidth.name, [sample(bandwidth.name, { domain: 'a' }, 1)]) });
    s.publish('two', { counters: [], gauges: gauges(bandwidth.name, [sample(bandwidth.name, { domain: 'b' }, 2)]) });
    s.publish('two', { counters: [sample(requests.name, { domain: 'x' }, 1)], gauges: noGauges });
    s.publish('one', { counters: [], gauges: noGauges });
    expect(listed(s, bandwidth.name)).toEqual(['a=1']);
    expect(listed(s, requests.name)).toEqual(['x=1']);
    expect(s.rejectedSamples().get('owner_conflict')).toBe(1);
  });

  it('caps label values, and counts values that collide after the cap as duplicates', () => {
    const s = store({ maxLabelValueLength: 8 });
    s.publish('topn', {
      counters: [],
      gauges: gauges(topn.name, [
        sample(topn.name, { dimension: 'url', key: '/very/long/one' }, 1),
        sample(topn.name, { dimension: 'url', key: '/very/long/two' }, 2),
      ]),
    });
    expect(listed(s, topn.name)).toEqual(['url,/very/l…=1']);
    expect(s.rejectedSamples().get('duplicate_series')).toBe(1);
  });

  it('keeps the first N series in label order over the cap, the same ones every cycle, and counts the drops', () => {
    const s = store({ maxSeriesPerFamily: 2 });
    const counters = ['d', 'b', 'a', 'c'].map((domain) => sample(requests.name, { domain }, 1));
    s.publish('access', { counters, gauges: noGauges });
    expect(listed(s, requests.name)).toEqual(['a=1', 'b=1']);
    expect(s.droppedSeries(requests.name)).toBe(2);
    s.publish('access', { counters: [...counters].reverse(), gauges: noGauges });
    expect(listed(s, requests.name)).toEqual(['a=1', 'b=1']);
    expect(s.droppedSeries(requests.name)).toBe(4);
    expect(s.stats().find((x) => x.family === requests.name)).toEqual({ family: requests.name, series: 2, dropped: 4 });
    expect(s.droppedSeries(topn.name)).toBe(0);
  });

  const REJECTIONS: readonly [string, () => Parameters<FamilyStore['publish']>[1], SampleRejectReason, number][] = [
    ['an unknown counter family', () => ({ counters: [sample('edge_nope_total', {}, 1)], gauges: noGauges }), 'unknown_family', 1],
    ['an unknown gauge family', () => ({ counters: [], gauges: gauges('edge_nope', [sample('edge_nope', {}, 1), sample('edge_nope', {}, 2)]) }), 'unknown_family', 2],
    ['a gauge family sent as counters', () => ({ counters: [sample(bandwidth.name, { domain: 'a' }, 1)], gauges: noGauges }), 'wrong_type', 1],
    ['a counter family sent as gauges', () => ({ counters: [], gauges: gauges(requests.name, [sample(requests.name, { domain: 'a' }, 1)]) }), 'wrong_type', 1],
    ['a sample filed under another gauge family', () => ({ counters: [], gauges: gauges(bandwidth.name, [sample(topn.name, { dimension: 'u', key: 'k' }, 1)]) }), 'wrong_family', 1],
    ['a missing label', () => ({ counters: [sample(traffic.name, { domain: 'a' }, 1)], gauges: noGauges }), 'label_mismatch', 1],
    ['an extra label', () => ({ counters: [sample(requests.name, { domain: 'a', instance: 'x' }, 1)], gauges: noGauges }), 'label_mismatch', 1],
    ['a misspelt label', () => ({ counters: [sample(requests.name, { domian: 'a' }, 1)], gauges: noGauges }), 'label_mismatch', 1],
    ['a negative counter', () => ({ counters: [sample(requests.name, { domain: 'a' }, -1)], gauges: noGauges }), 'invalid_value', 1],
    ['a NaN counter', () => ({ counters: [sample(requests.name, { domain: 'a' }, NaN)], gauges: noGauges }), 'invalid_value', 1],
    ['an infinite counter', () => ({ counters: [sample(requests.name, { domain: 'a' }, Infinity)], gauges: noGauges }), 'invalid_value', 1],
    ['a NaN timestamp', () => ({ counters: [sample(requests.name, { domain: 'a' }, 1, NaN)], gauges: noGauges }), 'invalid_value', 1],
    ['the same series twice', () => ({ counters: [sample(requests.name, { domain: 'a' }, 1), sample(requests.name, { domain: 'a' }, 2)], gauges: noGauges }), 'duplicate_series', 1],
  ];

  it.each(REJECTIONS)('rejects and counts %s, and never stores it', (_, update, reason, count) => {
    const s = store();
    s.publish('c', update());
    expect(Object.fromEntries(s.rejectedSamples())).toEqual({ [reason]: count });
    const stored = s.snapshot().flatMap((f) => f.series.map((x) => `${f.def.name}:${x.labelValues.join(',')}=${x.value}`));
    // Only the first of two identical series survives; nothing else rejected is stored.
    expect(stored).toEqual(reason === 'duplicate_series' ? [`${requests.name}:a=1`] : []);
  });

  it('accepts NaN and infinite gauges (the serializer spells them)', () => {
    const s = store();
    const values = [NaN, Infinity, -Infinity, -3];
    s.publish('g', { counters: [], gauges: gauges(bandwidth.name, values.map((v, i) => sample(bandwidth.name, { domain: `d${i}` }, v))) });
    expect(listed(s, bandwidth.name)).toEqual(['d0=NaN', 'd1=Infinity', 'd2=-Infinity', 'd3=-3']);
  });

  it('keeps timestamps (rounded to whole milliseconds)', () => {
    const s = store();
    s.publish('c', { counters: [sample(requests.name, { domain: 'a' }, 1, 1700000000123.6)], gauges: noGauges });
    expect(s.snapshot().find((f) => f.def.name === requests.name)?.series[0]?.timestampMs).toBe(1700000000124);
  });

  it('advances the generation on every publish and define', () => {
    const s = new FamilyStore();
    const g0 = s.generation;
    s.define([requests]);
    s.publish('c', { counters: [], gauges: noGauges });
    expect(s.generation).toBe(g0 + 2);
  });
});

describe("FamilyStore with the ledger's saved counters", () => {
  /** A stand-in for CounterLedger.saved: totals held by the test, version moved by save(). */
  function liveView(initial: readonly Sample[]) {
    let samples = [...initial];
    let version = 1;
    const saved: SavedCounters = {
      get version() {
        return version;
      },
      get size() {
        return samples.length;
      },
      [Symbol.iterator]: () => samples[Symbol.iterator](),
    };
    return { saved, save: (next: readonly Sample[]) => ((samples = [...next]), version++) };
  }

  it('reads the saved counters whenever their version moves, without another publish', () => {
    const s = store();
    const ledger = liveView([sample(requests.name, { domain: 'a' }, 1)]);
    s.publish('access', { counters: ledger.saved, gauges: noGauges });
    expect(listed(s, requests.name)).toEqual(['a=1']);
    const generation = s.generation;
    expect(s.generation).toBe(generation);
    ledger.save([sample(requests.name, { domain: 'a' }, 3), sample(requests.name, { domain: 'b' }, 1)]);
    expect(s.generation).toBeGreaterThan(generation);
    expect(listed(s, requests.name)).toEqual(['a=3', 'b=1']);
  });

  it('counts rejections again at each reading, as at each publish', () => {
    const s = store({ maxSeriesPerFamily: 1 });
    const ledger = liveView([sample(requests.name, { domain: 'a' }, 1), sample(requests.name, { domain: 'b' }, 1), sample('edge_nope_total', {}, 1)]);
    s.publish('access', { counters: ledger.saved, gauges: noGauges });
    expect([s.droppedSeries(requests.name), s.rejectedSamples().get('unknown_family')]).toEqual([1, 1]);
    expect([s.droppedSeries(requests.name), s.rejectedSamples().get('unknown_family')]).toEqual([1, 1]);
    ledger.save([sample(requests.name, { domain: 'a' }, 2), sample(requests.name, { domain: 'b' }, 2), sample('edge_nope_total', {}, 2)]);
    expect([s.droppedSeries(requests.name), s.rejectedSamples().get('unknown_family')]).toEqual([2, 2]);
  });

  it('reads published saved counters once per reading, however often they are published and saved in between', () => {
    const s = store();
    const ledger = liveView([sample(requests.name, { domain: 'a' }, 1)]);
    let reads = 0;
    const counted: SavedCounters = {
      get version() {
        return ledger.saved.version;
      },
      get size() {
        return ledger.saved.size;
      },
      [Symbol.iterator]: () => {
        reads++;
        return ledger.saved[Symbol.iterator]();
      },
    };
    for (let n = 2; n <= 100; n++) {
      ledger.save([sample(requests.name, { domain: 'a' }, n)]);
      s.publish('waf-events', { counters: counted, gauges: noGauges });
    }
    expect(reads).toBe(0);
    expect(listed(s, requests.name)).toEqual(['a=100']);
    expect(listed(s, requests.name)).toEqual(['a=100']);
    expect(reads).toBe(1);
  });

  it('stops reading saved counters once the collector publishes an array', () => {
    const s = store();
    const ledger = liveView([sample(requests.name, { domain: 'a' }, 1)]);
    s.publish('access', { counters: ledger.saved, gauges: noGauges });
    s.publish('access', { counters: [sample(requests.name, { domain: 'z' }, 9)], gauges: noGauges });
    ledger.save([sample(requests.name, { domain: 'a' }, 5)]);
    expect(listed(s, requests.name)).toEqual(['z=9']);
  });
});

describe('FamilyStore.define', () => {
  it('is idempotent for identical definitions', () => {
    const s = store();
    expect(() => s.define(DEFS)).not.toThrow();
    expect(s.snapshot().map((f) => f.def.name)).toEqual([
      'edge_domain_bandwidth_bytes_per_second',
      'edge_domain_requests_total',
      'edge_domain_traffic_bytes_total',
      'edge_topn_requests',
    ]);
  });

  it.each([
    ['a reserved label', [def('edge_x', 'gauge', ['job'])], /"job" is reserved/],
    ['an invalid label name', [def('edge_x', 'gauge', ['a-b'])], /must match/],
    ['a counter without _total', [def('edge_x', 'counter', [])], /_total/],
    ['a different definition under a taken name', [def('edge_domain_requests_total', 'counter', ['host'])], /registered twice/],
    ['an OpenMetrics name clash', [def('edge_domain_requests', 'gauge', [])], /OpenMetrics family name/],
  ])('rejects %s, changing nothing', (_, defs, problem) => {
    const s = store();
    const before = s.snapshot().map((f) => f.def.name);
    let error: unknown;
    try {
      s.define([...DEFS, def('edge_fine', 'gauge', []), ...defs]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MetricDefinitionError);
    expect(error instanceof MetricDefinitionError && error.problems.some((p) => problem.test(p))).toBe(true);
    expect(error instanceof MetricDefinitionError && error.code).toBe('EDGE_METRIC_DEF_INVALID');
    expect(s.snapshot().map((f) => f.def.name)).toEqual(before);
  });

  it.each([
    ['maxLabelValueLength', { maxLabelValueLength: 0 }],
    ['maxSeriesPerFamily', { maxSeriesPerFamily: 1.5 }],
  ])('rejects a bad %s', (_, options) => {
    expect(() => new FamilyStore(options)).toThrow(ArgumentError);
  });
});

describe('FamilyStore.selfFamily', () => {
  const runs = { name: 'edge_exporter_runs_total', type: 'counter', help: 'Runs.', unit: 'runs', labels: ['outcome'] } as const;

  it('holds the self-metric families beside the data ones, one per definition, the empty ones listed too', () => {
    const store = new FamilyStore();
    store.define([def('edge_data_total', 'counter', ['domain'])]);
    const lag = store.selfFamily({ name: 'edge_exporter_lag_seconds', type: 'gauge', help: 'Lag.', unit: 'seconds', labels: [] });
    const family = store.selfFamily(runs);
    expect(store.selfFamily(runs)).toBe(family);
    family.add({ outcome: 'success' }, 2);
    family.add({ outcome: 'error' }, 0);
    family.add({ outcome: 'success' }, 1);
    lag.set({}, 4.5);
    expect(store.selfSnapshot()).toEqual([
      { def: expect.objectContaining({ name: 'edge_exporter_lag_seconds' }), series: [{ labelValues: [], value: 4.5 }] },
      { def: runs, series: [{ labelValues: ['error'], value: 0 }, { labelValues: ['success'], value: 3 }] },
    ]);
    // A data family is not a self-metric, and recording a self-metric is not a publish.
    expect(store.snapshot().map((f) => f.def.name)).toEqual(['edge_data_total']);
  });

  it('recording a self-metric leaves the data generation alone, so the cached data rendering stays valid', () => {
    const store = new FamilyStore();
    const family = store.selfFamily(runs);
    const before = store.generation;
    family.add({ outcome: 'success' }, 1);
    expect(store.generation).toBe(before);
  });

  it('refuses a second definition under the same name, and a self-metric outside edge_exporter_', () => {
    const store = new FamilyStore();
    store.selfFamily(runs);
    expect(() => store.selfFamily({ ...runs, help: 'Other.' })).toThrow(MetricDefinitionError);
    expect(() => store.selfFamily({ ...runs, name: 'edge_runs_total' })).toThrow(/edge_exporter_/);
  });
});
