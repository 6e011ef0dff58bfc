// Once per series, reason and hour, on the clock it is given (no sleeping).
import { describe, expect, it } from 'vitest';
import type { RejectedPoints } from '../../../src/collectors/rejects.js';
import { REJECT_LOG_EVERY_MS, RejectLog } from '../../../src/engine/sample-job/reject-log.js';
import { totalsByReason } from '../../../src/collectors/rejects.js';

const a = (count: number): RejectedPoints => ({ series: 'edge_domain_requests_total{domain="a"}', reason: 'negative', count });
const aNan: RejectedPoints = { series: 'edge_domain_requests_total{domain="a"}', reason: 'non_finite', count: 1 };
const b: RejectedPoints = { series: 'edge_domain_requests_total{domain="b"}', reason: 'negative', count: 2 };

describe('RejectLog', () => {
  it('logs a series and reason once within the hour, and again once an hour has passed', () => {
    const log = new RejectLog();
    expect(log.due([a(3), b], 0)).toEqual([a(3), b]);
    expect(log.due([a(1)], 1)).toEqual([]);
    expect(log.due([a(4), aNan], REJECT_LOG_EVERY_MS - 1)).toEqual([aNan]); // another reason is another line
    expect(log.due([a(5), b], REJECT_LOG_EVERY_MS)).toEqual([a(5), b]);
  });

  it('forgets a series an hour after its line, so memory holds only the last hour', () => {
    const log = new RejectLog();
    log.due(Array.from({ length: 100 }, (_, i) => ({ series: `s${i}`, reason: 'negative' as const, count: 1 })), 0);
    expect(log.size).toBe(100);
    log.due([b], REJECT_LOG_EVERY_MS - 1);
    expect(log.size).toBe(101);
    log.due([], REJECT_LOG_EVERY_MS);
    expect(log.size).toBe(1);
  });

  it('sums a cycle by reason for the self-metric', () => {
    expect(totalsByReason([a(3), b, aNan])).toEqual({ negative: 5, non_finite: 1 });
    expect(totalsByReason([])).toEqual({ negative: 0, non_finite: 0 });
  });
});
