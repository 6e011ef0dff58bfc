// The series driver (driveSeries): a probe asked alone first, every other
// target counted as its answers arrive with the clock the probe fixed (or the
// last cycle's), and the output in target order whatever the arrival order.
import { describe, expect, it } from 'vitest';
import { platformClock } from '../../../src/api/index.js';
import type { RawPoint } from '../../../src/collectors/buckets.js';
import type { ReadClient } from '../../../src/api/index.js';
import type { CollectContext, CollectorLogger } from '../../../src/collectors/collector.js';
import {
  AuditRecord, driveSeries, NO_AUDIT, seriesKey, type SeriesState, type SeriesTarget, type TimeSpan,
} from '../../../src/collectors/series/index.js';
import { MIN, T0, pts, sumOf, val } from './fixtures.js';

type R = { readonly x?: RawPoint[] };
const quiet: CollectorLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, child: () => quiet };
const OPTIONS = { interval: '1m' as const, delayMs: 3 * MIN, maxBackfillMs: 60 * MIN, timestamps: false };
// The watermark T0-10m: buckets T0-9m .. T0-4m are due at T0.
const WM = T0 - 10 * MIN;
const FIRST = T0 - 60 * MIN;

function ctx(watermarks: Record<string, number>, now = T0): CollectContext {
  return {
    client: {} as ReadClient, now, signal: new AbortController().signal, tz: platformClock('+08:00'), log: quiet,
    targets: { domains: [], packages: [] }, watermarks, enabled: () => true,
  };
}

/** A target whose answer holds its series' points up to `upTo` (exclusive), or none; `gate` holds its answer back. */
function target(name: string, upTo: number | undefined, calls: string[], gate?: Promise<void>): SeriesTarget<R> {
  const labels = { domain: name };
  return {
    labels, gauges: false, gaugeWindowMs: undefined,
    specs: [{ family: 'f_total', labels, key: seriesKey('f_total', labels), metric: 'x', points: (r) => r.x }],
    send: async (span: TimeSpan) => {
      calls.push(`${name} asked`);
      await gate;
      calls.push(`${name} answered`);
      return upTo === undefined ? {} : { x: pts(FIRST, (Math.min(upTo, span.end) - FIRST) / MIN, '1m', val) };
    },
  };
}

const keyOf = (name: string): string => seriesKey('f_total', { domain: name });
const state = (): SeriesState => ({ audit: new AuditRecord(NO_AUDIT), clock: undefined });

function drive(targets: readonly SeriesTarget<R>[], s: SeriesState, now = T0) {
  const watermarks = Object.fromEntries(targets.map((t) => [keyOf(t.labels.domain ?? ''), WM]));
  return driveSeries<R, SeriesTarget<R>>(ctx(watermarks, now), OPTIONS, s, {
    collector: 'c', log: quiet, gaugeFamilies: [], targets, convert: () => ({ gauges: [], findings: [] }),
  });
}

describe('driveSeries', () => {
  it('asks the probe alone first, then counts the others as they answer, adding them in target order', async () => {
    const calls: string[] = [];
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // b answers only once c has: c arrives first.
    const c = target('c', T0, calls);
    const sendC = c.send;
    const targets = [target('a', T0, calls), target('b', T0, calls, gate), { ...c, send: async (span: TimeSpan, kind: 'main' | 'backfill') => {
      const r = await sendC(span, kind);
      release();
      return r;
    } }];
    const out = await drive(targets, state());
    expect(calls.slice(0, 2)).toEqual(['a asked', 'a answered']);
    expect(calls.indexOf('c answered')).toBeLessThan(calls.indexOf('b answered'));
    const due = sumOf(FIRST, T0 - 9 * MIN, T0 - 4 * MIN, '1m', val);
    expect(out.increments.map((s) => [s.labels.domain, s.value])).toEqual([['a', due], ['b', due], ['c', due]]);
    expect([...(out.targetNewestBucketEndMs ?? new Map()).keys()]).toEqual(['a', 'b', 'c']);
  });

  it('counts with the clock the probe shows: a probe seven buckets behind holds every target back', async () => {
    const calls: string[] = [];
    const out = await drive([target('a', T0 - 7 * MIN, calls), target('b', T0, calls)], state());
    // By the upstream's clock (behind by 7 buckets and one for the bucket it is in) nothing due has settled yet.
    expect(out.watermarks).toEqual({ [keyOf('a')]: WM, [keyOf('b')]: WM });
    expect(out.increments).toEqual([]);
  });

  it('counts with the last cycle\'s clock when the probe\'s answers show none, and keeps the cycle\'s reading for the next', async () => {
    const calls: string[] = [];
    const s = state();
    // Last cycle: every answer seven buckets behind.
    await drive([target('a', T0 - 7 * MIN, calls), target('b', T0 - 7 * MIN, calls)], s);
    expect(s.clock?.behindMs).toBe(7 * MIN);
    // This cycle the probe answers without the series: b's full answer is still counted by the last cycle's clock.
    const out = await drive([target('a', undefined, calls), target('b', T0, calls)], s);
    expect(out.watermarks[keyOf('b')]).toBe(WM);
    // The cycle's reading, over every answer, is not behind: the next cycle counts by it.
    expect(s.clock?.behindMs).toBe(0);
    const next = await drive([target('a', undefined, calls), target('b', T0, calls)], s);
    expect(next.watermarks[keyOf('b')]).toBe(T0 - 4 * MIN);
  });
});
