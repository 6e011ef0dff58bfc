// Wraps the OTLP exporter so that each batch's export result acknowledges its records' uids.
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { LogRecordExporter, ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { ATTR_LOG_RECORD_UID } from './record.js';

/** Called once per export with the uids it carried and the delegate's result. */
export type ExportOutcome = (uids: readonly string[], result: ExportResult) => void;

/**
 * Why a wrapper: the only place that knows whether the receiver took a batch
 * is the OTLP exporter's result callback (the SDK's own retries already run),
 * so each record's confirmation is taken from there, by uid. SUCCESS means the
 * receiver answered 2xx; an OTLP partial success is logged by the SDK and
 * still reported as SUCCESS, so it counts as delivered. (It was first written
 * because the SDK's BatchLogRecordProcessor hid failed exports; the sink now
 * hands batches to the exporter itself, pipeline.ts.)
 */
export class ConfirmingExporter implements LogRecordExporter {
  constructor(
    private readonly delegate: LogRecordExporter,
    private readonly onOutcome: ExportOutcome,
  ) {}

  export(records: ReadableLogRecord[], resultCallback: (result: ExportResult) => void): void {
    const uids: string[] = [];
    for (const record of records) {
      const uid = record.attributes[ATTR_LOG_RECORD_UID];
      if (typeof uid === 'string') uids.push(uid);
    }
    let reported = false;
    const report = (result: ExportResult): void => {
      if (reported) return; // a delegate must call back once; make sure of it
      reported = true;
      this.onOutcome(uids, result);
      resultCallback(result);
    };
    try {
      this.delegate.export(records, report);
    } catch (error) {
      report({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) });
    }
  }

  forceFlush(): Promise<void> {
    return this.delegate.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.delegate.shutdown();
  }
}
