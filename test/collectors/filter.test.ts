import { describe, expect, it } from 'vitest';
import { MetricFilter, anyFamilyEnabled } from '../../src/collectors/filter.js';
import { PatternError } from '../../src/config/patterns.js';

const TOPN_REQ = 'edge_topn_requests';
const TOPN_BYTES = 'edge_topn_traffic_bytes';
const DOMAIN_REQ = 'edge_domain_requests_total';

describe('MetricFilter.enabled', () => {
  it.each<[string, string[], string[], string, boolean]>([
    ['empty allow = all', [], [], DOMAIN_REQ, true],
    ['glob allow matches', ['edge_topn_*'], [], TOPN_REQ, true],
    ['glob allow excludes others', ['edge_topn_*'], [], DOMAIN_REQ, false],
    ['glob is anchored', ['topn_*'], [], TOPN_REQ, false],
    ['? is one character', ['edge_topn_request?'], [], TOPN_REQ, true],
    ['. is literal in a glob', ['edge.topn.requests'], [], TOPN_REQ, false],
    ['deny wins over allow', ['edge_topn_*'], [TOPN_BYTES], TOPN_BYTES, false],
    ['deny leaves the rest', ['edge_topn_*'], [TOPN_BYTES], TOPN_REQ, true],
    ['deny alone', [], ['edge_topn_*'], DOMAIN_REQ, true],
    ['deny alone matches', [], ['edge_topn_*'], TOPN_REQ, false],
    ['regex is anchored', ['/edge_domain/'], [], DOMAIN_REQ, false],
    ['regex alternatives', ['/edge_(domain|package)_.+/'], [], DOMAIN_REQ, true],
    ['regex alternatives stay inside the anchors', ['/edge_x|edge_domain_requests_total/'], [], DOMAIN_REQ, true],
    ['regex deny', [], ['/.*_total/'], DOMAIN_REQ, false],
    ['exact name', [DOMAIN_REQ], [], DOMAIN_REQ, true],
  ])('%s', (_name, allow, deny, family, expected) => {
    const filter = new MetricFilter({ allow, deny });
    expect(filter.enabled(family)).toBe(expected);
    expect(filter.enabled(family)).toBe(expected); // cached answer agrees
  });

  it.each(['/a)(b/', '/(/', ''])('rejects the pattern %j', (pattern) => {
    expect(() => new MetricFilter({ deny: [pattern] })).toThrow(PatternError);
  });
});

describe('anyFamilyEnabled', () => {
  const filter = new MetricFilter({ deny: ['edge_topn_*'] });
  it.each([
    ['all denied', [TOPN_REQ, TOPN_BYTES], false],
    ['one left', [TOPN_REQ, DOMAIN_REQ], true],
    ['no families', [], true],
  ])('%s', (_name, families, expected) => {
    expect(anyFamilyEnabled(filter, families.map((name) => ({ name })))).toBe(expected);
  });
});
