// Wraps the OTLP exporter so that each batch's export result acknowledges its records' uids.
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { LogRecordExporter, ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { ATTR_LOG_RECORD_UID } from './record.js';

/** Called once per export with the uids it carried and the delegate's result. */
export type ExportOutcome = (uids: readonly string[], result: ExportResult) => void;

/**
 * Why a wrapper: the BatchLogRecordProcessor reports a failed export only to
 * the global error handler, never retries it, and resolves forceFlush() even
 * when the export failed. The only place that knows whether the receiver
 * took a batch is the exporter's result callback, so the confirmation is
 * taken from there. SUCCESS means the receiver answered 2xx (the SDK has
 * already run its own retries); an OTLP partial success is logged by the
 * SDK and still reported as SUCCESS, so it counts as delivered.
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
