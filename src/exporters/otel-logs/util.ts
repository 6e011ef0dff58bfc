// Small helpers of the OTLP log sink: error summaries for logs and messages, duplicate detection.
import { OTLPExporterError } from '@opentelemetry/otlp-exporter-base';
import { describeNetCause, netCauseText, urlAddress } from '../../outbound/index.js';
import { EdgeError, InternalError } from '../../shared/errors.js';

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

/** Where the exports go, for a failed connection's description; `proxy` masked. */
export interface ExportTarget {
  readonly endpoint: string;
  readonly proxy?: string;
}

/**
 * A message (and status) safe to log: never the request or its headers. A
 * failed connection (an errno or TLS code, or a proxy's 407 to the CONNECT,
 * which the proxy agent hands on as the answer) also says where and why.
 */
export function summarizeExportError(error: unknown, target?: ExportTarget): ErrorSummary {
  if (error instanceof OTLPExporterError) {
    const message = error.message || `HTTP ${error.code ?? 'error'}`;
    if (error.code === 407 && target?.proxy !== undefined) return networkSummary(new ProxyRefusal(407), target);
    // The receiver answered: it is the address (the status page's row says where the refusal came from).
    const address = target === undefined ? {} : { address: urlAddress(target.endpoint) };
    return error.code === undefined ? { message, ...address } : { message, status: error.code, ...address };
  }
  // A code says where a connection failed (an errno, a TLS code), except a bug's, which names no connection.
  if (target !== undefined && error instanceof Error && !(error instanceof InternalError) && 'code' in error && typeof error.code === 'string') {
    return networkSummary(error, target);
  }
  if (error instanceof Error) return { message: error.message };
  return { message: error === undefined ? 'unknown error' : String(error) };
}

/** A proxy's refusal in the words undici uses, so describeNetCause reads both clients' alike. */
class ProxyRefusal extends EdgeError {
  readonly code = 'EDGE_PROXY_REFUSED';
  constructor(status: number) {
    super(`Proxy response (${status}) !== 200 when HTTP Tunneling`);
  }
}

function networkSummary(error: Error, target: ExportTarget): ErrorSummary {
  const cause = describeNetCause(error, target.endpoint, 'otlp', target.proxy);
  return {
    message: netCauseText(cause, target.proxy),
    address: cause.address,
    reason: cause.reason,
    hint: cause.hint,
    ...(target.proxy === undefined ? {} : { proxy: target.proxy }),
  };
}

/** Values that occur more than once, each listed once. */
export function duplicatesOf(values: readonly string[]): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const value of values) (seen.has(value) ? repeated : seen).add(value);
  return [...repeated];
}
