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
import { DENY, MIN, T0 } from './fakes.js';

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
    isDelivered: () => false, refresh: () => undefined, deliver, onPage: () => undefined,
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
      delivered.push(...batch);
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
    const drained = await drainWindow(WINDOW, context(client, async (batch) => void delivered.push(...batch), 25));
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
    const drained = await drainWindow(WINDOW, context(client, async (batch) => void delivered.push(...batch), 25, 100));
    expect(drained).toEqual({ delivered: 3 * PAGE, read: 3 * PAGE, complete: false });
    expect(client.pages).toEqual([1, 2, 3]);
    expect(delivered.map((e) => e.uid)).toEqual(RECORDS.slice(0, 3 * PAGE).map((r) => r.requestId));
  });
});

describe('drainWindow with a sink that encodes records as they are read', () => {
  it('takes each record out of its page as it reads it: nothing of the page is left to outlive the conversion', async () => {
    const client = new PagedClient();
    // As each event is held: how many records its page still holds.
    const left: number[] = [];
    const drained = await drainWindow(WINDOW, {
      ...context(client, async () => undefined),
      hold: (event) => {
        left.push(client.lists.at(-1)?.length ?? -1);
        return event;
      },
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

  it('holds what hold() returns, and releases each batch once, after it was delivered; never a batch whose delivery failed', async () => {
    const client = new PagedClient();
    client.failAt = 4;
    const held: LogEvent[] = [];
    const released: string[][] = [];
    const deliveredUids: string[][] = [];
    let batches = 0;
    const ctx: DrainContext = {
      ...context(client, async (batch) => {
        // A batch is released only after its delivery resolved: none of this one yet.
        expect(released.flat()).not.toContain(batch[0]?.uid);
        expect(batch.every((e) => held.includes(e))).toBe(true);
        if (++batches === 3) throw new Error('receiver gone');
        deliveredUids.push(batch.map((e) => e.uid));
      }),
      hold: (event) => {
        const kept = { ...event, body: '', attributes: {} };
        held.push(kept);
        return kept;
      },
      release: (batch) => void released.push(batch.map((e) => e.uid)),
    };
    await expect(drainWindow(WINDOW, ctx)).rejects.toThrow('receiver gone');
    // Every record taken was held as hold() returned it; the two delivered batches were released, each once.
    expect(held.map((e) => e.uid)).toEqual(RECORDS.slice(0, held.length).map((r) => r.requestId));
    expect(released).toEqual(deliveredUids);
    expect(released).toHaveLength(2);
    expect(released.flat()).toEqual(RECORDS.slice(0, 2 * PAGE).map((r) => r.requestId));
  });
});
