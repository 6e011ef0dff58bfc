// Exposition of a hostile cycle of every collector: published into a
// FamilyStore (default and small caps), rendered in the text format and in
// OpenMetrics, every rendering is valid UTF-8, reads cleanly with the strict
// reader (families contiguous, no series twice, escapes only \\ \" \n), holds
// only the families' own label names, no label value over the cap and no
// family over its series cap; the text renderings pass `promtool check
// metrics`. promtool 2.42 reads only the text format (see
// test/exporters/prometheus/promtool.test.ts), so OpenMetrics is checked by
// the strict reader alone.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MetricDef } from '../../src/collectors/collector.js';
import { Exposition } from '../../src/exporters/prometheus/exposition.js';
import { DEFAULT_MAX_LABEL_VALUE_LENGTH, DEFAULT_MAX_SERIES_PER_FAMILY, FamilyStore } from '../../src/exporters/prometheus/family-store.js';
import { SelfMetrics } from '../../src/exporters/prometheus/self-metrics.js';
import { readExposition, type ExpositionFamily, type ExpositionFormat } from '../support/exposition-reader.js';
import { checkMetrics } from '../support/promtool.js';
import { runs } from './hostile.js';
import { ALL_FAMILIES, cycleUpdates, world, type World } from './publish.js';

interface Caps {
  readonly maxLabelValueLength: number | undefined;
  readonly maxSeriesPerFamily: number | undefined;
}

const caps: fc.Arbitrary<Caps> = fc.record({
  maxLabelValueLength: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
  maxSeriesPerFamily: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
});

async function render(w: World, c: Caps): Promise<Record<ExpositionFormat, Buffer>> {
  const store = new FamilyStore({
    ...(c.maxLabelValueLength === undefined ? {} : { maxLabelValueLength: c.maxLabelValueLength }),
    ...(c.maxSeriesPerFamily === undefined ? {} : { maxSeriesPerFamily: c.maxSeriesPerFamily }),
  });
  store.define(ALL_FAMILIES);
  for (const [collector, update] of cycleUpdates(w)) store.publish(collector, update);
  const exposition = new Exposition({ families: store, self: new SelfMetrics({ families: store, version: '0.0.0-property', processMetrics: false }) });
  return { text: (await exposition.render('text')).body, openmetrics: (await exposition.render('openmetrics')).body };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function familyName(def: MetricDef, format: ExpositionFormat): string {
  return format === 'openmetrics' && def.type === 'counter' ? def.name.replace(/_total$/, '') : def.name;
}

/** Reads one rendering strictly and checks the data families against their definitions and the caps. */
function check(body: Buffer, format: ExpositionFormat, c: Caps): string {
  const text = utf8.decode(body);
  const families = new Map<string, ExpositionFamily>(readExposition(text, format).map((f) => [f.name, f]));
  const maxLength = c.maxLabelValueLength ?? DEFAULT_MAX_LABEL_VALUE_LENGTH;
  for (const def of ALL_FAMILIES) {
    const family = families.get(familyName(def, format));
    if (family === undefined) continue;
    expect(family.type).toBe(def.type);
    expect(family.samples.length).toBeLessThanOrEqual(c.maxSeriesPerFamily ?? DEFAULT_MAX_SERIES_PER_FAMILY);
    for (const sample of family.samples) {
      expect(sample.labels.map(([name]) => name), `${def.name} label names`).toEqual(def.labels);
      for (const [, value] of sample.labels) expect(value.length).toBeLessThanOrEqual(maxLength);
      if (def.type === 'counter') {
        expect(Number.isFinite(Number(sample.value))).toBe(true);
        expect(Number(sample.value)).toBeGreaterThanOrEqual(0);
      }
    }
  }
  return text;
}

describe('exposition of hostile cycles', () => {
  it('renders valid UTF-8 that reads strictly in both formats, within the caps', async () => {
    await fc.assert(
      fc.asyncProperty(world, caps, async (w, c) => {
        const bodies = await render(w, c);
        check(bodies.text, 'text', c);
        check(bodies.openmetrics, 'openmetrics', c);
      }),
      runs(150),
    );
  });

  it('renders text that promtool check metrics accepts', async () => {
    // Fewer runs: each promtool call costs tens of milliseconds.
    await fc.assert(
      fc.asyncProperty(world, caps, async (w, c) => {
        const text = check((await render(w, c)).text, 'text', c);
        expect(await checkMetrics(text)).toEqual({ ok: true, output: '' });
      }),
      runs(40),
    );
  }, 60_000);
});
