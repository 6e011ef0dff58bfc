// drainWindow's read-ahead: pages are read while a delivery is unconfirmed,
// but no more than one batch beyond it (a receiver outage stops the reading),
// and a read-ahead left behind by a failed delivery is not an unhandled
// rejection.
import { describe, expect, it } from 'vitest';
import { platformClock, type DescribeLogV2Request, type DescribeLogV2Answer } from '../../src/api/index.js';
import { wafLogRecord, type WafLogRecord } from '../../src/api/schemas/waf-log.js';
import { headerPolicy } from '../../src/forwarder/convert.js';
import { drainWindow, type DrainContext } from '../../src/forwarder/drain.js';
import type { LogEvent } from '../../src/forwarder/log-sink.js';
import { createSimulator } from '../../src/simulator/index.js';
import { DENY, EventBatch, MIN, T0 } from './fakes.js';

const tz = platformClock('+08:00');
const WINDOW = { startMs: T0 - 20 * MIN, endMs: T0 };
const RECORDS = createSimulator({ clock: { mode: 'fixed', start: T0 }, domains: 6 })
  .truth.wafEvents(WINDOW.startMs, WINDOW.endMs)
  .filter((e) => e.record.response.httpCode === DENY)
  .map((e) => wafLogRecord.parse(e.record))
  .reverse();
const PAGE = 10;

class PagedClient {
  readonly pages: number[] = [];
  /** Each page's list as answered (the drain empties them). */
  readonly lists: WafLogRecord[][] = [];
  failAt: number | undefined;
  async describeLogV2(req: DescribeLogV2Request): Promise<DescribeLogV2Answer> {
    const pageNo = req.action[0]?.pageNo ?? 1;
    this.pages.push(pageNo);
    await Promise.resolve();
    if (pageNo === this.failAt) throw new Error('upstream gone');
    const list = RECORDS.slice((pageNo - 1) * PAGE, pageNo * PAGE);
    this.lists.push(list);
    return { code: 200, msg: 'success', data: [{ metricName: 'logs', list, objectArrayList: [] }] };
  }
}

function context(client: PagedClient, deliver: DrainContext['deliver'], maxNew?: number, pageSize = PAGE): DrainContext {
  return {
    reader: { client, tz, query: { pageSize }, signal: new AbortController().signal },
    policy: headerPolicy(), maxBatch: PAGE, offsetMinutes: 480, now: () => T0,
    isDelivered: () => false, refresh: () => undefined, open: () => new EventBatch(), deliver, onPage: () => undefined,
    ...(maxNew === undefined ? {} : { maxNew }),
  };
}

describe('drainWindow read-ahead', () => {
  it('reads ahead while a batch is unconfirmed, but never more than one batch beyond it; delivers every record once, in order', async () => {
    expect(RECORDS.length).toBeGreaterThan(3 * PAGE);
    const client = new PagedClient();
    const delivered: LogEvent[] = [];
    const askedAtStart: number[] = [];
    const askedAtEnd: number[] = [];
    const n = await drainWindow(WINDOW, context(client, async (batch) => {
      askedAtStart.push(client.pages.length);
      // Unconfirmed for a while, as a receiver that is slow (or down) would leave it.
      await new Promise((resolve) => setTimeout(resolve, 5));
      askedAtEnd.push(client.pages.length);
      delivered.push(...batch.events);
    }));
    expect(n).toEqual({ delivered: RECORDS.length, read: RECORDS.length, complete: true });
    expect(delivered.map((e) => e.uid)).toEqual(RECORDS.map((r) => r.requestId));
    const pages = Math.ceil(RECORDS.length / PAGE) + (RECORDS.length % PAGE === 0 ? 1 : 0);
    // Batch k (page k) is delivered while page k+1 is read, and no further: one batch waits, the reading stops there.
    askedAtEnd.forEach((asked, k) => expect(asked).toBe(Math.min(k + 2, pages)));
    askedAtStart.forEach((asked, k) => expect(asked).toBeLessThanOrEqual(k + 2));
    expect(client.pages).toEqual(client.pages.map((_p, i) => i + 1));
  });

  it('a delivery that fails after its read-ahead started rejects with its own error; the read-ahead failing too is not unhandled', async () => {
    const client = new PagedClient();
    client.failAt = 2;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      await expect(drainWindow(WINDOW, context(client, async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        throw new Error('checkpoint save failed');
      }))).rejects.toThrow('checkpoint save failed');
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(client.pages).toEqual([1, 2]);
    expect(unhandled).toEqual([]);
  });

  it('stops reading once maxNew new records were taken before the last page, delivers what it took, and says the window is incomplete', async () => {
    const client = new PagedClient();
    const delivered: LogEvent[] = [];
    const drained = await drainWindow(WINDOW, context(client, async (batch) => void delivered.push(...batch.events), 25));
    // Pages 1-3 (30 records) pass 25; the reading stops after the page that did.
    expect(drained).toEqual({ delivered: 3 * PAGE, read: 3 * PAGE, complete: false });
    expect(client.pages).toEqual([1, 2, 3]);
    expect(delivered.map((e) => e.uid)).toEqual(RECORDS.slice(0, 3 * PAGE).map((r) => r.requestId));
  });

  it('a window whose short last page passes maxNew is complete: there was nothing more to read', async () => {
    const client = new PagedClient();
    const drained = await drainWindow(WINDOW, context(client, async () => undefined, RECORDS.length));
    const pages = Math.ceil(RECORDS.length / PAGE) + (RECORDS.length % PAGE === 0 ? 1 : 0);
    expect(drained).toEqual({ delivered: RECORDS.length, read: RECORDS.length, complete: true });
    expect(client.pages).toHaveLength(pages);
  });

  it('cuts a window at maxNew also when the upstream answers fewer per page than asked (a capped pageSize: every page short)', async () => {
    const client = new PagedClient();
    const delivered: LogEvent[] = [];
    // 100 asked, PAGE (10) answered: pages 1-3 pass 25, and none of them is the last.
    const drained = await drainWindow(WINDOW, context(client, async (batch) => void delivered.push(...batch.events), 25, 100));
    expect(drained).toEqual({ delivered: 3 * PAGE, read: 3 * PAGE, complete: false });
    expect(client.pages).toEqual([1, 2, 3]);
    expect(delivered.map((e) => e.uid)).toEqual(RECORDS.slice(0, 3 * PAGE).map((r) => r.requestId));
  });
});

describe('drainWindow with the sink taking each event as it is read', () => {
  it('takes each record out of its page as it reads it: nothing of the page is left to outlive the conversion', async () => {
    const client = new PagedClient();
    // As each event is added to the sink's batch: how many records its page still holds.
    const left: number[] = [];
    const drained = await drainWindow(WINDOW, {
      ...context(client, async () => undefined),
      open: () => Object.assign(new EventBatch(), { add: () => void left.push(client.lists.at(-1)?.length ?? -1) }),
    });
    expect(drained.delivered).toBe(RECORDS.length);
    // The i-th record of a page of n is taken out before it is converted: n - i - 1 remain.
    const expected = client.lists.flatMap((_list, p) => {
      const n = Math.min(PAGE, RECORDS.length - p * PAGE);
      return Array.from({ length: Math.max(0, n) }, (_v, i) => n - i - 1);
    });
    expect(left).toEqual(expected);
    expect(client.lists.every((list) => list.length === 0)).toBe(true);
  });

  it('adds each new event whole to a sink batch of at most maxBatch, keeps only what the confirmation reads, and delivers each batch once full', async () => {
    const client = new PagedClient();
    const opened: EventBatch[] = [];
    const delivered: Array<{ records: EventBatch; kept: LogEvent[] }> = [];
    const drained = await drainWindow(WINDOW, {
      ...context(client, async (batch) => {
        expect(batch.records).toBe(opened[delivered.length]);
        delivered.push({ records: batch.records as EventBatch, kept: batch.events });
      }),
      open: () => {
        const batch = new EventBatch();
        opened.push(batch);
        return batch;
      },
    });
    expect(drained).toEqual({ delivered: RECORDS.length, read: RECORDS.length, complete: true });
    expect(delivered).toHaveLength(opened.length);
    expect(opened.map((b) => b.size)).toEqual(opened.map((_b, i) => Math.min(PAGE, RECORDS.length - i * PAGE)));
    const whole = opened.flatMap((b) => b.events);
    expect(whole.map((e) => e.uid)).toEqual(RECORDS.map((r) => r.requestId));
    expect(whole.every((e) => e.body !== '' && Object.keys(e.attributes).length > 6)).toBe(true);
    // Of each event the drain keeps only the forwarder's few fields (kept.ts), in the batch's order.
    for (const { records, kept } of delivered) {
      expect(kept.map((e) => e.uid)).toEqual(records.events.map((e) => e.uid));
      expect(kept.every((e) => e.body === '' && Object.keys(e.attributes).length <= 6)).toBe(true);
    }
  });

  it('puts an event the caller admits not into no batch, and counts it as delivered', async () => {
    const client = new PagedClient();
    const sent: string[] = [];
    const taken: string[] = [];
    const drained = await drainWindow(WINDOW, {
      ...context(client, async (batch) => void sent.push(...batch.events.map((e) => e.uid))),
      admit: (event) => {
        taken.push(event.uid);
        return taken.length % 3 !== 0;
      },
    });
    expect(taken).toEqual(RECORDS.map((r) => r.requestId));
    expect(sent).toEqual(taken.filter((_uid, i) => (i + 1) % 3 !== 0));
    expect(drained.delivered).toBe(RECORDS.length);
  });
});
