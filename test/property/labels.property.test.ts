// Hostile label values through the FamilyStore and both renderings, against
// a model of the documented rules: a lone surrogate becomes U+FFFD; a value
// longer than the cap keeps as many whole code points as fit before the '…'
// marker (the cap counts UTF-16 units, marker included); series equal after
// that are one series, the first published; past maxSeriesPerFamily the
// first series in label-value order are kept and the rest are counted in
// edge_exporter_series_dropped_total. Samples whose label names are not
// exactly the family's are refused and counted, never rendered: no input can
// add a label or a series.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DOMAIN_TRAFFIC_BYTES } from '../../src/collectors/access/metrics.js';
import { CC_ATTACK_REQUESTS } from '../../src/collectors/cc-attack/metrics.js';
import { CERTIFICATE_INFO } from '../../src/collectors/inventory/metrics.js';
import { TOPN_REQUESTS } from '../../src/collectors/topn/metrics.js';
import type { MetricDef, Sample } from '../../src/collectors/collector.js';
import { Exposition } from '../../src/exporters/prometheus/exposition.js';
import { FamilyStore } from '../../src/exporters/prometheus/family-store.js';
import { SelfMetrics } from '../../src/exporters/prometheus/self-metrics.js';
import { labelsOf, readExposition, type ExpositionFamily, type ExpositionFormat } from '../support/exposition-reader.js';
import { NASTY_CHARS, hostileString, longText, runs } from './hostile.js';

const DEFS: readonly MetricDef[] = [TOPN_REQUESTS, CERTIFICATE_INFO, DOMAIN_TRAFFIC_BYTES, CC_ATTACK_REQUESTS];

// ------------------------------------------------------------ the model

const isSurrogate = (unit: string): boolean => unit.length === 1 && unit.charCodeAt(0) >= 0xd800 && unit.charCodeAt(0) <= 0xdfff;

/** Lone surrogates to U+FFFD: iterating a string by code points yields a lone surrogate alone. */
function wellFormed(value: string): string {
  return Array.from(value, (cp) => (isSurrogate(cp) ? '\uFFFD' : cp)).join('');
}

/** The longest run of whole code points that fits in max - 1 units, then the marker. */
function capped(value: string, max: number): string {
  if (value.length <= max) return value;
  let out = '';
  for (const cp of value) {
    if (out.length + cp.length > max - 1) break;
    out += cp;
  }
  return `${out}…`;
}

const lessThan = (a: readonly string[], b: readonly string[]): number => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return (a[i] ?? '') < (b[i] ?? '') ? -1 : 1;
  }
  return a.length - b.length;
};

interface Expected {
  /** Label-value tuples and values that must be rendered, in order. */
  readonly kept: ReadonlyArray<{ values: string[]; value: number }>;
  readonly dropped: number;
  readonly duplicates: number;
}

function expectedFor(def: MetricDef, samples: readonly Sample[], maxLength: number, maxSeries: number): Expected {
  const distinct = new Map<string, { values: string[]; value: number }>();
  let duplicates = 0;
  for (const s of samples) {
    const values = def.labels.map((l) => capped(wellFormed(s.labels[l] ?? ''), maxLength));
    const key = JSON.stringify(values);
    if (distinct.has(key)) duplicates++;
    else distinct.set(key, { values, value: s.value });
  }
  const all = [...distinct.values()].sort((a, b) => lessThan(a.values, b.values));
  return { kept: all.slice(0, maxSeries), dropped: Math.max(0, all.length - maxSeries), duplicates };
}

// ------------------------------------------------------------ generated input

/** Values that collide after cleaning or capping: shared long prefixes, lone-surrogate variants, plain repeats. */
const labelValue = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 2, arbitrary: fc.constantFrom('a', 'b', 'a\uD800', 'a\uDBFF', 'a\uFFFD', 'x",evil="1', 'a\\', 'a\n') },
  { weight: 1, arbitrary: fc.tuple(longText, fc.constantFrom(...NASTY_CHARS)).map(([head, tail]) => head + tail) },
);

function samplesOf(def: MetricDef): fc.Arbitrary<Sample[]> {
  const labels = fc.tuple(...def.labels.map(() => labelValue)).map((values) => Object.fromEntries(def.labels.map((l, i) => [l, values[i] ?? ''])));
  const value = def.type === 'counter' ? fc.double({ min: 0, max: 1e12, noNaN: true }) : fc.double({ noNaN: true, noDefaultInfinity: true });
  return fc.array(fc.record({ labels, value }).map(({ labels: l, value: v }) => ({ name: def.name, labels: l, value: v })), { maxLength: 12 });
}

/** Samples whose label names are not the family's: one added (hostile or reserved name), or one left out. */
function misfits(def: MetricDef): fc.Arbitrary<Sample[]> {
  const extraName = fc.constantFrom('evil', 'le', 'instance', '__name__', 'job', 'Domain', 'key ');
  const one = fc.record({ extra: extraName, value: labelValue, drop: fc.boolean() }).map(({ extra, value, drop }): Sample => {
    const base = Object.fromEntries(def.labels.map((l) => [l, value]));
    if (drop && def.labels.length > 0) delete base[def.labels[0] ?? ''];
    else base[def.labels.includes(extra) ? `${extra}_x` : extra] = value;
    return { name: def.name, labels: base, value: 1 };
  });
  return fc.array(one, { maxLength: 3 });
}

const input = fc.record({
  maxLength: fc.oneof(fc.constant(128), fc.integer({ min: 1, max: 12 })),
  maxSeries: fc.oneof(fc.constant(10_000), fc.integer({ min: 1, max: 6 })),
  published: fc.tuple(...DEFS.map(samplesOf)),
  misfits: fc.tuple(...DEFS.map(misfits)),
});

// ------------------------------------------------------------ the property

function familyOf(families: readonly ExpositionFamily[], name: string): ExpositionFamily | undefined {
  return families.find((f) => f.name === name);
}

describe('hostile label values', () => {
  it('render exactly the family labels, cleaned and capped as documented, within the series cap, with drops counted', async () => {
    await fc.assert(
      fc.asyncProperty(input, async ({ maxLength, maxSeries, published, misfits: bad }) => {
        const store = new FamilyStore({ maxLabelValueLength: maxLength, maxSeriesPerFamily: maxSeries });
        store.define(DEFS);
        const update = (i: number) => [...(published[i] ?? []), ...(bad[i] ?? [])];
        const counters = DEFS.flatMap((d, i) => (d.type === 'counter' ? update(i) : []));
        const gauges = new Map(DEFS.flatMap((d, i) => (d.type === 'gauge' ? [[d.name, update(i)] as const] : [])));
        // Twice: the drop counter sums over publishes; the series do not double.
        store.publish('c', { counters, gauges });
        store.publish('c', { counters, gauges });
        const exposition = new Exposition({ families: store, self: new SelfMetrics({ families: store, version: 't', processMetrics: false }) });
        const expected = DEFS.map((d, i) => expectedFor(d, published[i] ?? [], maxLength, maxSeries));
        const misfitCount = bad.reduce((n, list) => n + list.length, 0);

        for (const format of ['text', 'openmetrics'] as const satisfies readonly ExpositionFormat[]) {
          const body = (await exposition.render(format)).body;
          const families = readExposition(new TextDecoder('utf-8', { fatal: true }).decode(body), format);
          DEFS.forEach((def, i) => {
            const want = expected[i];
            const name = format === 'openmetrics' && def.type === 'counter' ? def.name.replace(/_total$/, '') : def.name;
            const rendered = familyOf(families, name)?.samples ?? [];
            for (const s of rendered) expect(s.labels.map(([l]) => l)).toEqual(def.labels);
            expect(rendered.map((s) => s.labels.map(([, v]) => v))).toEqual(want?.kept.map((k) => k.values));
            expect(rendered.map((s) => Number(s.value))).toEqual(want?.kept.map((k) => k.value + 0));
            const dropped = familyOf(families, format === 'text' ? 'edge_exporter_series_dropped_total' : 'edge_exporter_series_dropped')
              ?.samples.find((s) => labelsOf(s).family === def.name);
            expect(Number(dropped?.value ?? 0), `${def.name} dropped`).toBe(2 * (want?.dropped ?? 0));
          });
          const rejected = familyOf(families, format === 'text' ? 'edge_exporter_samples_rejected_total' : 'edge_exporter_samples_rejected')?.samples ?? [];
          const byReason = new Map(rejected.map((s) => [labelsOf(s).reason, Number(s.value)]));
          expect(byReason.get('label_mismatch') ?? 0).toBe(2 * misfitCount);
          expect(byReason.get('duplicate_series') ?? 0).toBe(2 * expected.reduce((n, e) => n + e.duplicates, 0));
        }
      }),
      runs(200),
    );
  });

  it('the model agrees with the documented examples', () => {
    expect(capped('abcdef', 4)).toBe('abc…');
    expect(capped('ab😀def', 4)).toBe('ab…');
    expect(capped('abc', 3)).toBe('abc');
    expect(capped('abcd', 1)).toBe('…');
    expect(wellFormed('a\uD800😀\uDC00')).toBe('a\uFFFD😀\uFFFD');
  });
});
