import { describe, expect, it } from 'vitest';
import { capLabelValue, metricDefProblems } from '../../../src/exporters/prometheus/naming.js';
import { def } from './fixtures.js';

describe('metricDefProblems', () => {
  it.each([
    ['a counter with _total', def('edge_domain_requests_total', 'counter', ['domain'])],
    ['a gauge with labels', def('edge_domain_bandwidth_bits_per_second', 'gauge', ['domain', 'source'])],
    ['an info gauge', def('edge_package_info', 'gauge', ['package', 'name'])],
    ['a label-less counter', def('edge_cc_attack_requests_total', 'counter', [])],
  ])('accepts %s', (_, d) => {
    expect(metricDefProblems(d)).toEqual([]);
  });

  it.each([
    ['no edge_ prefix', def('domain_requests_total', 'counter', []), /name must match/],
    ['a colon (recording rules only)', def('edge_domain:requests_total', 'counter', []), /name must match/],
    ['a trailing underscore', def('edge_domain_', 'gauge', []), /name must match/],
    ['the self-metric prefix', def('edge_exporter_thing', 'gauge', []), /reserved for self-metrics/],
    ['a counter without _total', def('edge_domain_requests', 'counter', []), /must end in _total/],
    ['a gauge with _total', def('edge_domain_requests_total', 'gauge', []), /must not end in _total/],
    ['a gauge with _created', def('edge_domain_created', 'gauge', []), /must not end in _total or _created/],
    ['empty help', def('edge_x', 'gauge', [], 'count', ' '), /help text is empty/],
    ['label instance', def('edge_x', 'gauge', ['instance']), /"instance" is reserved/],
    ['label job', def('edge_x', 'gauge', ['job']), /"job" is reserved/],
    ['label zone', def('edge_x', 'gauge', ['zone']), /"zone" is reserved/],
    ['label region', def('edge_x', 'gauge', ['region']), /"region" is reserved/],
    ['label service', def('edge_x', 'gauge', ['service']), /"service" is reserved/],
    ['label env', def('edge_x', 'gauge', ['env']), /"env" is reserved/],
    ['label le', def('edge_x', 'gauge', ['le']), /"le" is reserved/],
    ['label __name__', def('edge_x', 'gauge', ['__name__']), /starts with __/],
    ['label starting with a digit', def('edge_x', 'gauge', ['1abc']), /must match/],
    ['label with a dash', def('edge_x', 'gauge', ['user-agent']), /must match/],
    ['a label listed twice', def('edge_x', 'gauge', ['domain', 'domain']), /listed twice/],
  ])('rejects %s', (_, d, problem) => {
    const problems = metricDefProblems(d);
    expect(problems.some((p) => problem.test(p)), problems.join('; ')).toBe(true);
  });
});

describe('capLabelValue', () => {
  const long = 'a'.repeat(200);
  it.each([
    ['short values pass unchanged', 'abc', 5, 'abc'],
    ['a value exactly at the cap passes', 'abcde', 5, 'abcde'],
    ['a longer value is cut, marker included in the cap', 'abcdef', 5, 'abcd…'],
    ['default-sized cap', long, 128, `${'a'.repeat(127)}…`],
    ['a surrogate pair is never split', 'abc😀def', 5, 'abc…'],
    ['a pair fully inside the cap stays', 'ab😀cdef', 5, 'ab😀…'],
    ['CJK (one code unit each)', '日本語のドメイン名', 4, '日本語…'],
    ['a cap of 1 leaves the marker', 'abc', 1, '…'],
  ])('%s', (_, value, max, expected) => {
    const capped = capLabelValue(value, max);
    expect(capped).toBe(expected);
    expect(capped.length).toBeLessThanOrEqual(max);
    // Valid UTF-16 in, valid UTF-8 out: a round trip through UTF-8 changes nothing.
    expect(Buffer.from(capped, 'utf8').toString('utf8')).toBe(capped);
  });
});
