// One window, read to its last page and delivered: records already delivered
// (the checkpoint's ids, or earlier in this window) are dropped, the rest are
// converted and handed over in batches of at most maxBatch. At most one page
// plus one batch is held; the next page is read only once the batch before it
// is confirmed, so a receiver outage stops the reading too.
import type { LogEvent } from '../types.js';
import { toLogEvent, type HeaderPolicy } from './convert.js';
import { readWindow, type PageReader } from './fetch.js';
import type { TimeWindow } from './window.js';

export interface DrainContext {
  readonly reader: PageReader;
  readonly policy: HeaderPolicy;
  readonly maxBatch: number;
  /** The observed time of a page's records. */
  now(): number;
  /** Whether the checkpoint already holds this requestId. */
  isDelivered(uid: string): boolean;
  /** Resolves once the receiver confirmed the whole batch (deliver.ts). */
  deliver(batch: readonly LogEvent[]): Promise<void>;
  /** After each page: records read, and how many of them were repeats. */
  onPage(read: number, repeats: number): void;
}

/** Delivers the window's new records; resolves with how many were delivered. */
export async function drainWindow(window: TimeWindow, ctx: DrainContext): Promise<number> {
  const maxBatch = Math.max(1, Math.floor(ctx.maxBatch));
  const buffer: LogEvent[] = [];
  // Ids waiting in the buffer: a page that shifted may repeat them before they are delivered.
  const buffered = new Set<string>();
  let delivered = 0;
  const flush = async (all: boolean): Promise<void> => {
    while (buffer.length >= maxBatch || (all && buffer.length > 0)) {
      const batch = buffer.splice(0, maxBatch);
      await ctx.deliver(batch);
      for (const e of batch) buffered.delete(e.uid);
      delivered += batch.length;
    }
  };
  for await (const page of readWindow(ctx.reader, window)) {
    const observedMs = ctx.now();
    let repeats = 0;
    for (const record of page) {
      if (ctx.isDelivered(record.requestId) || buffered.has(record.requestId)) {
        repeats++;
        continue;
      }
      buffered.add(record.requestId);
      buffer.push(toLogEvent(record, observedMs, ctx.policy));
    }
    ctx.onPage(page.length, repeats);
    await flush(false);
  }
  await flush(true);
  return delivered;
}
