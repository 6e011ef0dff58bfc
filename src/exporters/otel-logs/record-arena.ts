// LogRecords encoded as the forwarder reads them (LogSink.encode), into
// chunks of memory used again once the receiver confirmed their records.
// Held whole, a batch's events lived across HTTP round trips and the checkpoint's
// save: with the daemon's 4 MB semi-spaces (src/cli/node-flags.ts) every one
// of them, its attributes and the page strings they point at, was promoted
// to the old generation, and marking it again at every full collection was
// much of the GC helpers' CPU. Encoded as it is read, an event's fields die
// young and its record waits as bytes. A chunk per batch, freed by GC,
// bought little (external memory drives full collections too: docs/benchmarks.md
// 12.9); chunks kept and written over again did.
import type { LogEvent } from '../../forwarder/index.js';
import { InternalError } from '../../shared/errors.js';

/** One stretch of memory records are copied into, and how many of them are not released yet. */
interface Chunk {
  readonly bytes: Uint8Array;
  /** Records in it not yet released. */
  live: number;
  /** No record is added any more: free once none is live. */
  sealed: boolean;
}

/** Bytes per chunk: about 700 deny records; a larger record gets a chunk of its own. */
const CHUNK_BYTES = 1 << 20;
/** Free chunks kept for reuse: a batch in flight, one waiting and a page span about three. */
const POOL_SIZE = 4;

/**
 * A LogEvent whose record is encoded already: the fields its sender still
 * reads (LogSink.encode's `kept`), and where its record lies. Only the arena
 * that made it reads the bytes.
 */
export class EncodedEvent implements LogEvent {
  readonly uid: string;
  readonly timestampMs: number;
  readonly observedMs: number;
  readonly severity: LogEvent['severity'];
  readonly severityText: string;
  readonly eventName: string;
  readonly body: string;
  readonly attributes: LogEvent['attributes'];
  /** Set by release(): the bytes may have been written over since. */
  released = false;

  constructor(kept: LogEvent, readonly arena: RecordArena, readonly chunk: Chunk, readonly start: number, readonly end: number) {
    this.uid = kept.uid;
    this.timestampMs = kept.timestampMs;
    this.observedMs = kept.observedMs;
    this.severity = kept.severity;
    this.severityText = kept.severityText;
    this.eventName = kept.eventName;
    this.body = kept.body;
    this.attributes = kept.attributes;
  }
}

/**
 * Copies encoded records into chunks, and gives a chunk out again once every
 * record in it was released. A chunk with a record never released (a window
 * that failed, a stop) is left to GC, never written over.
 */
export class RecordArena {
  private current: Chunk | undefined;
  private used = 0;
  private readonly free: Chunk[] = [];

  /** `record` (encoded, valid until the caller encodes again) copied in, standing for `kept`. */
  add(record: Uint8Array, kept: LogEvent): EncodedEvent {
    let chunk = this.current;
    if (chunk === undefined || this.used + record.length > chunk.bytes.length) chunk = this.next(record.length);
    const start = this.used;
    chunk.bytes.set(record, start);
    this.used += record.length;
    chunk.live++;
    return new EncodedEvent(kept, this, chunk, start, this.used);
  }

  /** The record's bytes; an event released (or another arena's) is a bug in the caller. */
  bytesOf(event: EncodedEvent): Uint8Array {
    if (event.arena !== this || event.released) throw new InternalError(`log record ${event.uid} was released before it was sent`);
    return event.chunk.bytes.subarray(event.start, event.end);
  }

  /** Their records are sent for the last time: the memory may be used again. Each event counts once. */
  release(events: readonly LogEvent[]): void {
    for (const event of events) {
      if (!(event instanceof EncodedEvent) || event.arena !== this || event.released) continue;
      event.released = true;
      const chunk = event.chunk;
      chunk.live--;
      if (chunk.sealed && chunk.live === 0) this.recycle(chunk);
    }
  }

  private next(size: number): Chunk {
    const last = this.current;
    if (last !== undefined) {
      last.sealed = true;
      if (last.live === 0) this.recycle(last);
    }
    const chunk = size <= CHUNK_BYTES ? this.free.pop() : undefined;
    const fresh = chunk ?? { bytes: new Uint8Array(Math.max(CHUNK_BYTES, size)), live: 0, sealed: false };
    fresh.sealed = false;
    this.current = fresh;
    this.used = 0;
    return fresh;
  }

  private recycle(chunk: Chunk): void {
    if (chunk.bytes.length === CHUNK_BYTES && this.free.length < POOL_SIZE) this.free.push(chunk);
  }
}
