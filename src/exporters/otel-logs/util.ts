// Small helpers of the OTLP log sink: error summaries for logs and messages, duplicate detection.
import { OTLPExporterError } from '@opentelemetry/otlp-exporter-base';

export interface ErrorSummary {
  readonly message: string;
  /** HTTP status, when the receiver answered with a non-retryable one. */
  readonly status?: number;
}

/** A message (and status) safe to log: never the request or its headers. */
export function summarizeExportError(error: unknown): ErrorSummary {
  if (error instanceof OTLPExporterError) {
    const message = error.message || `HTTP ${error.code ?? 'error'}`;
    return error.code === undefined ? { message } : { message, status: error.code };
  }
  if (error instanceof Error) return { message: error.message };
  return { message: error === undefined ? 'unknown error' : String(error) };
}

/** Values that occur more than once, each listed once. */
export function duplicatesOf(values: readonly string[]): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const value of values) (seen.has(value) ? repeated : seen).add(value);
  return [...repeated];
}
