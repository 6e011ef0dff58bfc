// One window, read to its last page and delivered: records already delivered
// (the checkpoint's ids, or earlier in this window) are dropped, the rest are
// converted and each added to a batch of the sink's as it is read (outgoing.ts),
// a batch going once it holds maxBatch, the last one at the window's end; the
// events the caller admits not (a summary's fold) go to no batch. Pages are read
// ahead while a batch is delivered (on the wire, then its checkpoint saved),
// until a whole batch waits behind it: at most one batch in flight, one
// waiting and one page are held, so a receiver outage stops the reading too.
// With maxNew the reading also stops once that many new records were taken
// (delivered all the same): the forwarder then reads the window again,
// shorter, so what one window adds to the ids kept is bounded (forwarder.ts).
//
// What the record times say about the window is a finding, not a filter: an
// upstream may ignore the range, or stamp records with a time that runs
// behind the one it selects them by. A record outside the window is counted
// (out_of_range) and still forwarded if it was never delivered (dropping it
// could lose it for good: its time may say nothing of the windows that return
// it); its id is kept as long as answers keep returning it (delivery-state.ts), so it
// is never sent twice.
import type { LogBatch, LogEvent } from './log-sink.js';
import { toLogEvent, type HeaderPolicy } from './convert.js';
import { Outgoing } from './outgoing.js';
import { readWindow, type Page, type PageReader } from './fetch.js';
import { recordTime } from './record-time.js';
import type { TimeWindow } from './window.js';

/** What a page's record times found about the assumptions (pageMismatches states them as mismatches). */
export interface PageFindings {
  /** Records whose timeStamp carried no zone offset. */
  readonly naive: number;
  /** Records whose time is outside the window asked for (forwarded unless delivered). */
  readonly outOfRange: number;
}

export interface DrainContext {
  readonly reader: PageReader;
  readonly policy: HeaderPolicy;
  readonly maxBatch: number;
  /**
   * Stop reading once this many new records were taken before the last page
   * (the window is then incomplete; what was taken is still delivered). Default: no limit.
   */
  readonly maxNew?: number;
  /** The platform zone, for a timeStamp without an offset. */
  readonly offsetMinutes: number;
  /** The observed time of a page's records. */
  now(): number;
  /** Whether this requestId, with this record time (undefined: none readable), was delivered already. */
  isDelivered(uid: string, timeMs: number | undefined): boolean;
  /** Delivered ids an answer returned again: keep them while answers keep returning them. */
  refresh(uids: readonly string[]): void;
  /** A new batch of the sink's (LogSink.batch). */
  open(): LogBatch;
  /**
   * Optional: whether a new event goes as a record of its own; false when the
   * caller took it instead (folded into a summary, volume.ts). Asked of each
   * new event in the order read. Default: every one goes.
   */
  admit?(event: LogEvent): boolean;
  /** Resolves once the receiver confirmed the whole batch and it was saved (deliver.ts). */
  deliver(batch: Outgoing): Promise<void>;
  /** After each page: records read, how many were repeats, and what their times said. */
  onPage(read: number, repeats: number, findings: PageFindings): void;
}

/** How much of a window was delivered. */
export interface Drained {
  /** New records delivered, and those the caller took instead (admit). */
  readonly delivered: number;
  /** Records read, repeats included: what the window held (new ones alone undercount after a cut). */
  readonly read: number;
  /** False when reading stopped at maxNew before the last page: the cursor must not pass this window. */
  readonly complete: boolean;
}

/** Delivers the window's new records (at most about maxNew of them, a page more at worst). */
export async function drainWindow(window: TimeWindow, ctx: DrainContext): Promise<Drained> {
  const maxBatch = Math.max(1, Math.floor(ctx.maxBatch));
  const maxNew = ctx.maxNew ?? Infinity;
  // New records taken from this window so far, and whether that stopped the reading.
  let taken = 0;
  let read = 0;
  let full = false;
  // Batches waiting, in order, each cut at maxBatch (the batch in flight is not among them).
  const waiting: Outgoing[] = [];
  // Ids waiting in a batch or in flight: a page that shifted may repeat them before they are delivered.
  const buffered = new Set<string>();
  let delivered = 0;
  // New records the caller took instead (admit): delivered as far as this window goes.
  let folded = 0;
  /** Whether a whole batch waits: the reader stops there, the deliverer goes. */
  const batchWaits = (): boolean => (waiting[0]?.records.size ?? 0) >= maxBatch;
  /** The batch the next new record goes to. */
  const filling = (): Outgoing => {
    const last = waiting.at(-1);
    if (last !== undefined && last.records.size < maxBatch) return last;
    const next = new Outgoing(ctx.open());
    waiting.push(next);
    return next;
  };
  const pages = readWindow(ctx.reader, window);
  let done = false;
  let stopped = false;
  let failure: { error: unknown } | undefined;
  let wakeDeliverer: (() => void) | undefined;
  let wakeReader: (() => void) | undefined;
  const wake = (which: 'deliverer' | 'reader'): void => {
    const call = which === 'deliverer' ? wakeDeliverer : wakeReader;
    if (which === 'deliverer') wakeDeliverer = undefined;
    else wakeReader = undefined;
    call?.();
  };

  const lookAt = ({ records, last }: Page): void => {
    const observedMs = ctx.now();
    const count = records.length;
    let repeats = 0;
    const findings = { naive: 0, outOfRange: 0 };
    const refresh: string[] = [];
    // Each record is taken out of the page as it is read, so it is garbage once its event is in a batch.
    // Held by the page until its last one was, a page of 500 outlived the scavenges its own conversion set off,
    // and every parsed record was promoted and marked again at the next full collection: 1.8 KB promoted per
    // event, against 0.85 KB with each taken out (section 12.10 of `git show 7888197:docs/benchmarks.md`).
    records.reverse();
    for (let record = records.pop(); record !== undefined; record = records.pop()) {
      const time = recordTime(record.timeStamp, ctx.offsetMinutes);
      if (time?.naive) findings.naive++;
      const outside = time !== undefined && (time.ms < window.startMs || time.ms >= window.endMs);
      if (outside) findings.outOfRange++;
      if (ctx.isDelivered(record.requestId, time?.ms) || buffered.has(record.requestId)) {
        repeats++;
        // Returned again: an upstream that ignores the range may return it in windows its time says nothing about.
        if (!buffered.has(record.requestId)) refresh.push(record.requestId);
        continue;
      }
      const event = toLogEvent(record, observedMs, ctx.policy, ctx.offsetMinutes, time);
      taken++;
      if (ctx.admit?.(event) === false) {
        folded++;
        continue;
      }
      buffered.add(record.requestId);
      filling().add(event);
    }
    // The last page completes the window however many it held. Any other page may cut it, also
    // one shorter than asked: an upstream that caps pageSize answers every page short (fetch.ts).
    if (taken >= maxNew && !last) full = true;
    read += count;
    if (refresh.length > 0) ctx.refresh(refresh);
    ctx.onPage(count, repeats, findings);
  };

  // The reader runs ahead of the deliveries while no whole batch waits:
  // the next pages are read (and converted) while a batch is on the wire and its
  // checkpoint saves. A receiver outage stops it there, so at most one batch in
  // flight, one waiting and one page are held.
  const reading = (async () => {
    try {
      while (!stopped && !full) {
        if (batchWaits()) {
          await new Promise<void>((resolve) => (wakeReader = resolve));
          continue;
        }
        const result = await pages.next();
        if (result.done === true || stopped) break;
        lookAt(result.value);
        wake('deliverer');
      }
    } catch (error) {
      failure = { error };
    } finally {
      done = true;
      wake('deliverer');
    }
  })();

  try {
    for (;;) {
      while (!batchWaits() && !done) await new Promise<void>((resolve) => (wakeDeliverer = resolve));
      // A page that could not be read fails the window (its records are read again on the next poll).
      if (failure) throw failure.error;
      const batch = waiting.shift();
      if (batch === undefined) break;
      wake('reader');
      await ctx.deliver(batch);
      for (const e of batch.events) buffered.delete(e.uid);
      delivered += batch.events.length;
    }
  } finally {
    stopped = true;
    wake('reader');
  }
  await reading;
  return { delivered: delivered + folded, read, complete: !full };
}
