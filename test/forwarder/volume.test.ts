// The volume policy's pure parts: pacing a batch (over_rate delay), a
// window's budget and the fold of the events past it (over_rate summarize).
import { describe, expect, it } from 'vitest';
import type { LogEvent } from '../../src/forwarder/log-sink.js';
import { paceBatch, windowBudget, WindowFold } from '../../src/forwarder/volume.js';

const T = Date.UTC(2026, 2, 2, 4, 0, 0);

function event(uid: string, atMs: number, domain: string, rule: string, client: string, level = '高风险'): LogEvent {
  return {
    uid, timestampMs: atMs, observedMs: atMs + 1000, severity: 'ERROR', severityText: level, eventName: 'edge.waf.deny', body: `deny ${uid}`,
    attributes: { 'server.address': domain, 'security_rule.uuid': rule, 'client.address': client, 'edge.waf.severity_level': level, 'url.path': `/${uid}` },
  };
}

describe('paceBatch (over_rate delay)', () => {
  it.each([
    // nextFree, now, events, rate -> wait, nextFree
    [0, 1000, 100, 50, 0, 3000],
    [3000, 1000, 100, 50, 2000, 5000],
    [3000, 4000, 10, 100, 0, 4100],
    [5000, 5000, 1, 0.5, 0, 7000],
  ])('next free %i, now %i, %i events at %f/s: waits %i, next free %i', (nextFree, now, events, rate, wait, next) => {
    expect(paceBatch(nextFree, now, events, rate)).toEqual({ waitMs: wait, nextFreeMs: next });
  });

  it('over a run of batches, the events sent by any batch\'s start never pass rate × elapsed plus one batch', () => {
    let nextFree = 0;
    let now = 0;
    let sent = 0;
    for (let i = 0; i < 50; i++) {
      const { waitMs, nextFreeMs } = paceBatch(nextFree, now, 64, 200);
      now += waitMs;
      nextFree = nextFreeMs;
      expect(sent).toBeLessThanOrEqual((200 * now) / 1000 + 64);
      sent += 64;
    }
    expect(now).toBe((49 * 64 * 1000) / 200);
  });
});

describe('windowBudget (over_rate summarize)', () => {
  const none = new Map<string, number>();
  // Kept under the cursor: delivered in earlier windows. Past it: delivered (or read again) in this window before a crash.
  const afterCrash = new Map([['a', T - 5000], ['b', T], ['c', T + 30_000], ['d', T + 30_000], ['e', T + 12_000]]);
  it.each([
    // window start/end, cursor, ids kept, rate -> budget: only the seconds after the cursor are new
    [{ startMs: T - 300_000, endMs: T + 30_000 }, T, none, 10, 300],
    [{ startMs: T, endMs: T + 900_000 }, T, none, 2.5, 2250],
    [{ startMs: T - 300_000, endMs: T + 1000 }, T, none, 0.5, 0],
    [{ startMs: T - 300_000, endMs: T + 30_000 }, T + 30_000, none, 10, 0],
    [{ startMs: T - 300_000, endMs: T + 30_000 }, T, afterCrash, 10, 297],
    [{ startMs: T - 300_000, endMs: T + 30_000 }, T, afterCrash, 0.1, 0],
  ])('%o from cursor %i, kept %o, at %f/s: %i', (window, cursorMs, delivered, rate, budget) => {
    expect(windowBudget(window, { cursorMs, delivered }, rate)).toBe(budget);
  });
});

describe('WindowFold', () => {
  it('passes the budget, then folds one summary per minute, domain, rule and client, with count, first and last time', () => {
    const fold = new WindowFold(3);
    const batch1 = [event('a', T + 1000, 'x.test', 'R1', '1.1.1.1'), event('b', T + 2000, 'x.test', 'R1', '1.1.1.1')];
    expect(batch1.filter((e) => fold.take(e)).map((e) => e.uid)).toEqual(['a', 'b']);
    const batch2 = [
      event('c', T + 3000, 'x.test', 'R1', '1.1.1.1'),
      event('d', T + 5000, 'x.test', 'R1', '1.1.1.1'),
      event('e', T + 4000, 'x.test', 'R1', '1.1.1.1', '中风险'),
      event('f', T + 61_000, 'x.test', 'R1', '1.1.1.1'),
      event('g', T + 6000, 'y.test', 'R1', '1.1.1.1'),
      event('h', T + 7000, 'x.test', 'R2', '1.1.1.1'),
      event('i', T + 8000, 'x.test', 'R1', '2.2.2.2'),
    ];
    expect(batch2.filter((e) => fold.take(e)).map((e) => e.uid)).toEqual(['c']);
    expect(fold.take(event('j', T + 9000, 'x.test', 'R1', '1.1.1.1'))).toBe(false);
    for (const uid of 'defghij') expect(fold.holds(uid)).toBe(true);
    expect(fold.holds('a')).toBe(false);
    const summaries = fold.summaries();
    const byKey = new Map(summaries.map((s) => [`${s.record.attributes['server.address']}|${s.record.attributes['security_rule.uuid']}|${s.record.attributes['client.address']}|${s.record.attributes['edge.waf.first_time']}`, s]));
    expect(summaries).toHaveLength(5);
    const main = byKey.get(`x.test|R1|1.1.1.1|${new Date(T + 4000).toISOString()}`);
    expect(main?.record.attributes).toEqual({
      'server.address': 'x.test', 'security_rule.uuid': 'R1', 'client.address': '1.1.1.1', 'edge.waf.action': 'deny',
      'edge.waf.count': 3, 'edge.waf.first_time': new Date(T + 4000).toISOString(), 'edge.waf.last_time': new Date(T + 9000).toISOString(),
    });
    expect(main?.record).toMatchObject({ timestampMs: T + 4000, eventName: 'edge.waf.deny_summary' });
    // The folded events keep their own severity, for the denied counter.
    expect(main?.folded.map((e) => [e.uid, e.attributes['edge.waf.severity_level']])).toEqual([['d', '高风险'], ['e', '中风险'], ['j', '高风险']]);
    expect(summaries.reduce((n, s) => n + Number(s.record.attributes['edge.waf.count']), 0)).toBe(7);
    expect(new Set(summaries.map((s) => s.record.uid)).size).toBe(5);
  });

  it('a summary\'s uid is its key and folded ids (no window: a restart may cut the window otherwise): the same in any order, another when it folds other events', () => {
    const events = [event('a', T + 1000, 'x.test', 'R1', '1.1.1.1'), event('b', T + 70_000, 'x.test', 'R1', '1.1.1.1'), event('c', T + 2000, 'y.test', 'R2', '3.3.3.3')];
    const uids = (list: LogEvent[]): string[] => {
      const fold = new WindowFold(0);
      for (const e of list) fold.take(e);
      return fold.summaries().map((s) => s.record.uid);
    };
    const base = uids(events);
    expect(base).toHaveLength(3);
    expect(uids([...events].reverse())).toEqual(base);
    // A late record joining a key: that key's uid changes, the others stay.
    const joined = uids([...events, event('d', T + 3000, 'x.test', 'R1', '1.1.1.1')]);
    expect(joined.filter((u) => base.includes(u))).toHaveLength(2);
  });
});
