// Found with the property tests (test/property/labels): label values with lone
// surrogates (upstream JSON may carry "\ud800") reached the exposition raw;
// the UTF-8 encoding made each one U+FFFD, so two values differing only there
// became two identical series in the exposition.
import { describe, expect, it } from 'vitest';
import { Exposition } from '../../../src/exporters/prometheus/exposition.js';
import { FamilyStore } from '../../../src/exporters/prometheus/family-store.js';
import { wellFormedLabelValue } from '../../../src/exporters/prometheus/naming.js';
import { SelfMetrics } from '../../../src/exporters/prometheus/self-metrics.js';
import { def, sample } from './fixtures.js';

const topn = def('edge_topn_requests', 'gauge', ['dimension', 'key'], 'requests');

describe('wellFormedLabelValue', () => {
  it.each([
    ['plain text is kept', 'abc', 'abc'],
    ['a surrogate pair is kept', 'a😀b', 'a😀b'],
    ['a lone high surrogate', 'a\uD800b', 'a\uFFFDb'],
    ['a lone low surrogate', '\uDC00a', '\uFFFDa'],
    ['a high surrogate at the end', 'ab\uDBFF', 'ab\uFFFD'],
    ['two highs then a low: only the first is lone', '\uD800\uD800\uDC00', '\uFFFD\uD800\uDC00'],
    ['a pair then a low: only the last is lone', '\uD83D\uDE00\uDE00', '😀\uFFFD'],
    ['reversed pair: both lone', '\uDC00\uD800', '\uFFFD\uFFFD'],
  ])('%s', (_name, value, expected) => {
    expect(wellFormedLabelValue(value)).toBe(expected);
  });
});

describe('FamilyStore with lone surrogates in label values', () => {
  async function render(store: FamilyStore): Promise<Buffer> {
    return (await new Exposition({ families: store, self: new SelfMetrics({ families: store, version: 't', processMetrics: false }) }).render('text')).body;
  }

  it('stores them as U+FFFD, so values that encode alike are one series (the first published)', async () => {
    const store = new FamilyStore();
    store.define([topn]);
    store.publish('topn', {
      counters: [],
      gauges: new Map([[topn.name, [sample(topn.name, { dimension: 'url', key: '/a\uD800' }, 1), sample(topn.name, { dimension: 'url', key: '/a\uDBFF' }, 2)]]]),
    });
    expect(store.snapshot()[0]?.series).toEqual([{ labelValues: ['url', '/a\uFFFD'], value: 1 }]);
    expect(store.rejectedSamples().get('duplicate_series')).toBe(1);
    const body = await render(store);
    const text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    expect(text.split('\n').filter((line) => line.startsWith('edge_topn_requests{'))).toEqual(['edge_topn_requests{dimension="url",key="/a\uFFFD"} 1']);
  });

  it('caps the cleaned value: the cut never leaves half a pair', () => {
    const store = new FamilyStore({ maxLabelValueLength: 4 });
    store.define([topn]);
    store.publish('topn', { counters: [], gauges: new Map([[topn.name, [sample(topn.name, { dimension: 'u', key: 'ab😀\uDC00xyz' }, 1)]]]) });
    expect(store.snapshot()[0]?.series[0]?.labelValues).toEqual(['u', 'ab…']);
  });
});
