// One window, read to its last page and delivered: records already delivered
// (the checkpoint's ids, or earlier in this window) are dropped, the rest are
// converted and handed over in batches of at most maxBatch. At most two pages
// plus one batch are held: the next page is read once the receiver confirmed
// the batch before it, while that batch's checkpoint is saved (the page is
// looked at only after the save), so a receiver outage stops the reading too.
//
// What the record times say about the window is evidence, not a filter: an
// upstream may ignore the range, or stamp records with a time that runs
// behind the one it selects them by. A record outside the window is counted
// (out_of_range) and still forwarded if it was never delivered (dropping it
// could lose it for good: its time may say nothing of the windows that return
// it); its id is kept as long as answers keep returning it (delivery-book.ts), so it
// is never sent twice.
import type { WafLogRecord } from '../../api/index.js';
import type { LogEvent } from '../types.js';
import { toLogEvent, type HeaderPolicy } from './convert.js';
import { readWindow, type PageReader } from './fetch.js';
import { recordTime } from './record-time.js';
import type { TimeWindow } from './window.js';

/** What a page's record times said about the assumptions. */
export interface PageEvidence {
  /** Records whose timeStamp carried no zone offset. */
  readonly naive: number;
  /** Records whose time is outside the window asked for (forwarded unless delivered). */
  readonly outOfRange: number;
}

export interface DrainContext {
  readonly reader: PageReader;
  readonly policy: HeaderPolicy;
  readonly maxBatch: number;
  /** The platform zone, for a timeStamp without an offset. */
  readonly offsetMinutes: number;
  /** The observed time of a page's records. */
  now(): number;
  /** Whether the checkpoint already holds this requestId. */
  isDelivered(uid: string): boolean;
  /** Delivered ids an answer returned again: keep them while answers keep returning them. */
  refresh(uids: readonly string[]): void;
  /** Resolves once the receiver confirmed the whole batch and it was saved (deliver.ts); onReceived before the save. */
  deliver(batch: readonly LogEvent[], onReceived: () => void): Promise<void>;
  /** After each page: records read, how many were repeats, and what their times said. */
  onPage(read: number, repeats: number, evidence: PageEvidence): void;
}

/** Delivers the window's new records; resolves with how many were delivered. */
export async function drainWindow(window: TimeWindow, ctx: DrainContext): Promise<number> {
  const maxBatch = Math.max(1, Math.floor(ctx.maxBatch));
  const buffer: LogEvent[] = [];
  // Ids waiting in the buffer: a page that shifted may repeat them before they are delivered.
  const buffered = new Set<string>();
  let delivered = 0;
  const pages = readWindow(ctx.reader, window);
  let next: Promise<IteratorResult<readonly WafLogRecord[]>> | undefined;
  let done = false;
  const readAhead = (): void => {
    if (done || next !== undefined) return;
    next = pages.next();
    // Awaited below unless a delivery fails first; its failure then must not go unhandled.
    next.catch(() => undefined);
  };
  const flush = async (all: boolean): Promise<void> => {
    while (buffer.length >= maxBatch || (all && buffer.length > 0)) {
      const batch = buffer.splice(0, maxBatch);
      await ctx.deliver(batch, readAhead);
      for (const e of batch) buffered.delete(e.uid);
      delivered += batch.length;
    }
  };
  for (;;) {
    readAhead();
    const result = await (next as Promise<IteratorResult<readonly WafLogRecord[]>>);
    next = undefined;
    if (result.done === true) {
      done = true;
      break;
    }
    const page = result.value;
    const observedMs = ctx.now();
    let repeats = 0;
    const evidence = { naive: 0, outOfRange: 0 };
    const refresh: string[] = [];
    for (const record of page) {
      const time = recordTime(record.timeStamp, ctx.offsetMinutes);
      if (time?.naive) evidence.naive++;
      const outside = time !== undefined && (time.ms < window.startMs || time.ms >= window.endMs);
      if (outside) evidence.outOfRange++;
      if (ctx.isDelivered(record.requestId) || buffered.has(record.requestId)) {
        repeats++;
        // Returned again: an upstream that ignores the range may return it in windows its time says nothing about.
        if (!buffered.has(record.requestId)) refresh.push(record.requestId);
        continue;
      }
      buffered.add(record.requestId);
      buffer.push(toLogEvent(record, observedMs, ctx.policy, ctx.offsetMinutes));
    }
    if (refresh.length > 0) ctx.refresh(refresh);
    ctx.onPage(page.length, repeats, evidence);
    await flush(false);
  }
  await flush(true);
  return delivered;
}
