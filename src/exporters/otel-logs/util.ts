// Small helpers of the OTLP log sink: error summaries for logs and messages, duplicate detection.
import { OTLPExporterError } from '@opentelemetry/otlp-exporter-base';
import { connectionFailure, ProxyRefusal, shownProxy, urlAddress, type Endpoint } from '../../outbound/index.js';
import { InternalError } from '../../shared/errors.js';

interface ErrorSummary {
  readonly message: string;
  /** HTTP status, when the receiver answered with a non-retryable one. */
  readonly status?: number;
  /** For a failed connection: where, why (errno / TLS code), the proxy (masked) and one hint. */
  readonly address?: string;
  readonly reason?: string;
  readonly proxy?: string;
  readonly hint?: string;
}

/**
 * A message (and status) safe to log: never the request or its headers. A
 * failed connection to `endpoint` (an errno or TLS code, or a proxy's 407 to
 * the CONNECT, which the proxy agent hands on as the answer) also says where
 * and why.
 */
export function summarizeExportError(error: unknown, endpoint: Endpoint): ErrorSummary {
  const proxy = shownProxy(endpoint.route, endpoint.url);
  if (error instanceof OTLPExporterError) {
    const message = error.message || `HTTP ${error.code ?? 'error'}`;
    if (error.code === 407 && proxy !== undefined) return networkSummary(new ProxyRefusal(407), endpoint, proxy);
    // The receiver answered: it is the address (the status page's row says where the refusal came from).
    const address = urlAddress(endpoint.url);
    return error.code === undefined ? { message, address } : { message, status: error.code, address };
  }
  // A code says where a connection failed (an errno, a TLS code), except a bug's, which names no connection.
  if (error instanceof Error && !(error instanceof InternalError) && 'code' in error && typeof error.code === 'string') {
    return networkSummary(error, endpoint, proxy);
  }
  if (error instanceof Error) return { message: error.message };
  return { message: error === undefined ? 'unknown error' : String(error) };
}

function networkSummary(error: Error, endpoint: Endpoint, proxy: string | undefined): ErrorSummary {
  const { message, address, reason, hint } = connectionFailure(error, endpoint.name, endpoint.url, proxy);
  return { message, address, reason, hint, ...(proxy === undefined ? {} : { proxy }) };
}

/** Values that occur more than once, each listed once. */
export function duplicatesOf(values: readonly string[]): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const value of values) (seen.has(value) ? repeated : seen).add(value);
  return [...repeated];
}
