// A batch on its way to the log sink, as the forwarder holds it: the sink's
// batch, which took each event whole as it was read (LogSink.batch: the OTLP
// sink encodes it then), and of each event only what the forwarder reads once
// the receiver confirmed the batch (kept.ts). Nothing of the sink's comes back:
// the batch is delivered, and its confirmation is the forwarder's business.
import type { LogBatch, LogEvent } from './log-sink.js';
import { keptOf } from './kept.js';

export class Outgoing {
  /** What the batch's confirmation confirms, as kept: each event sent, or every event a summary record folds. */
  readonly events: LogEvent[] = [];

  constructor(readonly records: LogBatch) {}

  /** An event sent as its own record. */
  add(event: LogEvent): void {
    this.records.add(event);
    this.events.push(keptOf(event));
  }

  /** A summary record (volume.ts), which confirms the events it folds. */
  addSummary(record: LogEvent, folded: readonly LogEvent[]): void {
    this.records.add(record);
    // One by one: a flood may fold more events into one summary than a call takes arguments.
    for (const event of folded) this.events.push(event);
  }
}
