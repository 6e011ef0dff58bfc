// Found by the property tests (test/property/cc-attack): a numeric string too
// long for a double (the items are undocumented and read by shape) became
// Infinity, and so an infinite gauge.
import { describe, expect, it } from 'vitest';
import { parseCcAnswer } from '../../../src/collectors/cc-attack/parse.js';
import { T0 } from '../series/fixtures.js';

const huge = '9'.repeat(400);

describe('parseCcAnswer with numbers beyond a double', () => {
  it('reads a detail field that overflows as absent', () => {
    const parsed = parseCcAnswer([{ metricName: 'attack_detail', data: { attackedDomains: huge, peakRequests: '7' } }]);
    expect(parsed.detail).toEqual({ peakRequests: 7 });
  });

  it('discards a ranking or a trend holding one, like any other unreadable entry', () => {
    const parsed = parseCcAnswer([
      { metricName: 'domain', data: { list: [{ name: 'a.com', value: huge }] } },
      { metricName: 'ccPolicyTrend', data: { trend: [[T0, 1], [T0 + 60_000, huge]] } },
    ]);
    expect(parsed.domains).toBeUndefined();
    expect(parsed.trend).toBeUndefined();
    expect(parsed.issues.map((i) => i.metricName)).toEqual(['domain', 'ccPolicyTrend']);
  });
});
