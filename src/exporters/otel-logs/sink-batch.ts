// A batch of the OTLP sink (LogSink.batch), filled by the forwarder as it
// reads: the uids of its events (a DeliveryError names them, and a batch
// repeating one is refused), and each event's record as the sink's encoding
// keeps it until the receiver confirmed it: encoded into the arena at once
// (http/protobuf, otlp-serializer.ts), so the event itself dies young, or as
// the SDK's record (http/json, and a test's exporter).
import type { Resource } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { LogBatch, LogEvent } from '../../forwarder/index.js';
import { ArenaRecords, type RecordArena } from './record-arena.js';
import { toReadableLogRecord } from './record.js';

export abstract class SinkBatch implements LogBatch {
  readonly uids: string[] = [];
  /** The receiver confirmed it: it is never sent again. */
  spent = false;

  get size(): number {
    return this.uids.length;
  }

  add(event: LogEvent): void {
    this.uids.push(event.uid);
    this.take(event);
  }

  /** Once the receiver confirmed it: what it holds is the encoding's again. */
  spend(): void {
    this.spent = true;
  }

  /** Keeps `event`'s record as the encoding sends it. */
  protected abstract take(event: LogEvent): void;
}

/** Each event as the SDK's record, for an SDK LogRecordExporter. */
export class RecordBatch extends SinkBatch {
  readonly records: ReadableLogRecord[] = [];

  constructor(private readonly resource: Resource, private readonly scope: ReadableLogRecord['instrumentationScope']) {
    super();
  }

  protected take(event: LogEvent): void {
    this.records.push(toReadableLogRecord(event, this.resource, this.scope));
  }
}

/** Each event's record encoded as it is added, its bytes in the arena until the batch is spent. */
export class EncodedBatch extends SinkBatch {
  readonly records = new ArenaRecords();

  /** `encode` gives a record's bytes, valid until its next call. */
  constructor(private readonly arena: RecordArena, private readonly encode: (event: LogEvent) => Uint8Array) {
    super();
  }

  protected take(event: LogEvent): void {
    this.arena.add(this.records, this.encode(event));
  }

  override spend(): void {
    super.spend();
    this.arena.release(this.records);
  }
}
