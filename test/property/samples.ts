// What every conversion output must be, whatever the input: samples of the
// collector's own families, exactly the family's label names with string
// values, finite values (counters also non-negative), finite timestamps, and
// no series twice.
import { expect } from 'vitest';
import type { MetricDef, Sample } from '../../src/collectors/collector.js';

function seriesId(sample: Pick<Sample, 'name' | 'labels'>): string {
  return JSON.stringify([sample.name, Object.entries(sample.labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
}

export function expectWellFormed(samples: readonly Sample[], defs: readonly MetricDef[]): void {
  const byName = new Map(defs.map((d) => [d.name, d]));
  const seen = new Set<string>();
  for (const s of samples) {
    const def = byName.get(s.name);
    expect(def, `${s.name} is one of the collector's families`).toBeDefined();
    expect(Object.keys(s.labels).sort(), `${s.name} label names`).toEqual([...(def?.labels ?? [])].sort());
    for (const value of Object.values(s.labels)) expect(typeof value).toBe('string');
    expect(Number.isFinite(s.value), `${s.name} ${JSON.stringify(s.labels)} = ${s.value} is finite`).toBe(true);
    if (def?.type === 'counter') expect(s.value).toBeGreaterThanOrEqual(0);
    if (s.timestampMs !== undefined) expect(Number.isFinite(s.timestampMs)).toBe(true);
    const id = seriesId(s);
    expect(seen.has(id), `${id} appears once`).toBe(false);
    seen.add(id);
  }
}
