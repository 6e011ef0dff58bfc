// What the audit hands OTLP metrics' delta points: each upward revision it
// corrects, per series key and bucket, as [bucket start, added]
// (CollectOutput.corrected), summing to the correction it adds to the
// counter; a downward revision is reported and adds nothing. Values by hand.
import { describe, expect, it } from 'vitest';
import { platformClock } from '../../../src/api/index.js';
import type { CollectContext, CollectOutput, CollectorLogger } from '../../../src/collectors/collector.js';
import type { RawPoint } from '../../../src/collectors/buckets.js';
import type { CounterSpec } from '../../../src/collectors/series/answer.js';
import { AuditRecord } from '../../../src/collectors/series/audit.js';
import { closeCycle } from '../../../src/collectors/series/close.js';
import { seriesKey } from '../../../src/collectors/series/keys.js';
import type { Grid } from '../../../src/collectors/series/options.js';
import { spanOf } from '../../../src/collectors/series/window.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const T = Date.UTC(2026, 2, 2, 4, 0);
const GRID: Grid = { interval: '5m', offsetMinutes: 480 };
const REQ = 'edge_domain_requests_total';

/** The answer: series name -> its points. */
type Answer = Readonly<Record<string, readonly RawPoint[]>>;

function spec(domain: string): CounterSpec<Answer> {
  const labels = { domain };
  return { family: REQ, labels, key: seriesKey(REQ, labels), metric: 'requests', points: (answer) => answer[domain] };
}
const A = spec('a.com');
const B = spec('b.com');

/** Buckets T, T+5m, ... T+20m, as counted. */
const HELD = [10, 20, 30, 40, 50];
const at = (i: number): number => T + i * 5 * MIN;
const buckets = (values: readonly number[]): Array<readonly [number, number]> => values.map((v, i) => [at(i), v] as const);
const points = (values: readonly number[]): RawPoint[] => buckets(values);

/** A record holding what `held` counted for each series (buckets T..T+20m, counted at T+30m). */
function recorded(held: Readonly<Record<string, readonly number[]>>, correct = true): AuditRecord {
  const record = new AuditRecord({ everyMs: 15 * MIN, lookbackMs: HOUR, correct });
  const counted = new Map(Object.entries(held).map(([domain, values]) => [seriesKey(REQ, { domain }), { from: at(0), to: at(values.length - 1), values: buckets(values) }]));
  record.record(counted, T + 30 * MIN, GRID);
  return record;
}

function audit(record: AuditRecord, answer: Answer) {
  const range = record.range([A.key, B.key]);
  if (range === undefined) throw new Error('nothing to audit');
  return record.compare([A, B], answer, spanOf(range, GRID), GRID, T + 45 * MIN);
}

describe('AuditRecord.compare: corrected', () => {
  it('two buckets of one series revised upward: [bucket, added] each, summing to the correction', () => {
    // A's buckets at T+5m and T+15m went up by 6 and 7; the rest match.
    const out = audit(recorded({ 'a.com': HELD }), { 'a.com': points([10, 26, 30, 47, 50]) });
    expect([...out.corrected]).toEqual([[A.key, [[at(1), 6], [at(3), 7]]]]);
    expect(out.corrections).toEqual([{ name: REQ, labels: { domain: 'a.com' }, value: 13 }]);
    expect({ match: out.match, revised: out.revised }).toEqual({ match: 3, revised: 2 });
  });

  it('a downward revision adds nothing: no entry, no correction, still reported', () => {
    const out = audit(recorded({ 'a.com': HELD }), { 'a.com': points([10, 20, 25, 40, 50]) });
    expect(out.corrected.size).toBe(0);
    expect(out.corrections).toEqual([]);
    expect(out.revised).toBe(1);
    expect(out.revisions.map((r) => r.seen)).toEqual([expect.stringMatching(/counted as 30, 25 now \(down\)/)]);
  });

  it('up and down in one series, and another series: only the upward ones, per series', () => {
    const out = audit(recorded({ 'a.com': HELD, 'b.com': [1, 2, 3] }), {
      'a.com': points([10, 18, 33, 40, 50]),
      'b.com': points([1, 2, 4.5]),
    });
    expect([...out.corrected]).toEqual([
      [A.key, [[at(2), 3]]],
      [B.key, [[at(2), 1.5]]],
    ]);
    expect(out.corrections.map((c) => [c.labels.domain, c.value])).toEqual([['a.com', 3], ['b.com', 1.5]]);
    expect(out.revised).toBe(3);
  });

  it('correct: false — revisions reported, nothing corrected', () => {
    const out = audit(recorded({ 'a.com': HELD }, false), { 'a.com': points([10, 26, 30, 47, 50]) });
    expect(out.corrected.size).toBe(0);
    expect(out.corrections).toEqual([]);
    expect(out.revised).toBe(2);
  });

  it('a bucket corrected once is held at its new value: the next audit adds only what came since', () => {
    const record = recorded({ 'a.com': HELD });
    audit(record, { 'a.com': points([10, 26, 30, 40, 50]) });
    const again = audit(record, { 'a.com': points([10, 28, 30, 40, 50]) });
    expect([...again.corrected]).toEqual([[A.key, [[at(1), 2]]]]);
  });
});

describe('closeCycle: CollectOutput.corrected', () => {
  const quiet: CollectorLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, child: () => quiet };

  it('carries the audit\'s per-bucket corrections beside the summed increment', async () => {
    const record = recorded({ 'a.com': HELD });
    record.due(T + 30 * MIN); // the first cycle starts the audit clock
    const answer: Answer = { 'a.com': points([10, 26, 30, 47, 50]) };
    const ctx = { now: T + 45 * MIN, log: quiet, tz: platformClock('+08:00'), signal: new AbortController().signal } as Partial<CollectContext> as CollectContext;
    const summed: CollectOutput = { gauges: new Map(), increments: [{ name: REQ, labels: { domain: 'a.com' }, value: 60 }], watermarks: {}, errors: [] };
    const out = await closeCycle(ctx, {
      log: quiet, grid: GRID, audit: record, delayMs: 5 * MIN, autoDelay: undefined,
      targets: [{ labels: { domain: 'a.com' }, specs: [A], send: () => Promise.resolve(answer) }],
      answered: undefined, clock: undefined, counted: [], inFlight: 1,
    }, summed);
    expect([...(out.corrected ?? [])]).toEqual([[A.key, [[at(1), 6], [at(3), 7]]]]);
    // The cycle's own increment, then the correction summed per series: 6 + 7.
    expect(out.increments).toEqual([
      { name: REQ, labels: { domain: 'a.com' }, value: 60 },
      { name: REQ, labels: { domain: 'a.com' }, value: 13 },
    ]);
    expect(out.audit).toMatchObject({ match: 3, revised: 2 });
  });
});
