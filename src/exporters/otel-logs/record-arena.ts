// LogRecords encoded as the forwarder adds them to a batch (LogSink.batch),
// copied into chunks of memory used again once the receiver confirmed their
// records. Held whole, a batch's events lived across HTTP round trips and the checkpoint's
// save: with the daemon's 4 MB semi-spaces (src/cli/node-flags.ts) every one
// of them, its attributes and the page strings they point at, was promoted
// to the old generation, and marking it again at every full collection was
// much of the GC helpers' CPU. Encoded as it is read, an event's fields die
// young and its record waits as bytes. A chunk per batch, freed by GC,
// bought little (external memory drives full collections too: docs/benchmarks.md
// 12.9); chunks kept and written over again did.
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
 * Where one batch's records lie in the arena, in order: numbers and chunk
 * references only, no object per record. Read until released, which is once,
 * when the receiver confirmed them.
 */
export class ArenaRecords {
  /** The chunk of each record. */
  readonly chunks: Chunk[] = [];
  /** Each record's start and end in its chunk. */
  readonly bounds: number[] = [];
  released = false;
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

  /** `record` (encoded, valid until the caller encodes again) copied in, as the last of `records`. */
  add(records: ArenaRecords, record: Uint8Array): void {
    let chunk = this.current;
    if (chunk === undefined || this.used + record.length > chunk.bytes.length) chunk = this.next(record.length);
    const start = this.used;
    chunk.bytes.set(record, start);
    this.used += record.length;
    chunk.live++;
    records.chunks.push(chunk);
    records.bounds.push(start, this.used);
  }

  /** The records' bytes, in order; records released already are a bug in the caller. */
  views(records: ArenaRecords): Uint8Array[] {
    if (records.released) throw new InternalError('log records were released before they were sent');
    const { chunks, bounds } = records;
    return chunks.map((chunk, i) => chunk.bytes.subarray(bounds[2 * i], bounds[2 * i + 1]));
  }

  /** The records are sent for the last time: their memory may be used again. Counts once. */
  release(records: ArenaRecords): void {
    if (records.released) return;
    records.released = true;
    for (const chunk of records.chunks) {
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
