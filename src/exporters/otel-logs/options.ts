// OtlpLogSink's options, their defaults, and their resolution (config maps YAML and the OTEL_* variables onto them).
import { directEndpoint, type Endpoint } from '../../outbound/index.js';
import { ArgumentError } from '../../shared/errors.js';

export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** The narrow logger the sink writes to (pino fits). Structured fields; never headers. */
export interface OtlpSinkLogger {
  debug(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/** The OTel resource every record carries. */
export interface OtlpResourceOptions {
  /** `service.name`. */
  readonly serviceName: string;
  /** `service.version`. */
  readonly serviceVersion: string;
  /** `service.instance.id`: unique per running instance (the config module chooses it). */
  readonly serviceInstanceId: string;
  /** More resource attributes (e.g. from OTEL_RESOURCE_ATTRIBUTES); the three above win. Default none. */
  readonly attributes?: Readonly<Record<string, string>>;
}

export interface OtlpLogSinkOptions {
  /**
   * The receiver: its full OTLP/HTTP logs URL (e.g.
   * `http://127.0.0.1:4318/v1/logs`), the proxy route to it (NO_PROXY
   * applied) and its TLS block, for a direct or proxied https:// receiver.
   * Default: the SDK's own resolution of the URL, which reads
   * OTEL_EXPORTER_OTLP_LOGS_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT +
   * `/v1/logs`, else `http://localhost:4318/v1/logs`, reached directly and
   * verified against the system's roots.
   */
  readonly endpoint?: Endpoint;
  /** Wire encoding. Default `http/protobuf`. */
  readonly protocol?: OtlpProtocol;
  /**
   * Sent with every export. The SDK also adds OTEL_EXPORTER_OTLP_HEADERS and
   * OTEL_EXPORTER_OTLP_LOGS_HEADERS; these win key by key. Default none.
   */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Time budget of one export, the SDK's retries (429/502/503/504, network
   * errors; backoff 1 s x1.5 up to 5 s, at most 5 retries) included. Always
   * passed to the SDK, so OTEL_EXPORTER_OTLP_(LOGS_)TIMEOUT is not read by it:
   * config maps those here. Default 10000 (the SDK's default).
   */
  readonly timeoutMs?: number;
  /**
   * Most events one deliver() takes; one deliver() is one export. Default 512.
   */
  readonly maxBatch?: number;
  /** Grace after timeoutMs before an unacknowledged record counts as failed. Default 2000. */
  readonly ackMarginMs?: number;
  /** Request compression. Default: the SDK's (OTEL_EXPORTER_OTLP_(LOGS_)COMPRESSION, else none). */
  readonly compression?: 'none' | 'gzip';
  readonly resource: OtlpResourceOptions;
  /** Default: no logging. */
  readonly logger?: OtlpSinkLogger;
}

/** Where the SDK sends when no endpoint is given and no OTEL_* variable names one; what messages name then. */
const SDK_DEFAULT_URL = 'http://localhost:4318/v1/logs';
const DEFAULT_PROTOCOL: OtlpProtocol = 'http/protobuf';
const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BATCH = 512;
const DEFAULT_ACK_MARGIN_MS = 2_000;

export interface ResolvedOptions {
  /** The URL the SDK is given: undefined lets it read its OTEL_* variables. */
  readonly url: string | undefined;
  /** The receiver as its transport reaches it and messages name it (the SDK's default URL when none is given). */
  readonly endpoint: Endpoint;
  readonly protocol: OtlpProtocol;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly maxBatch: number;
  readonly ackMarginMs: number;
  readonly compression: 'none' | 'gzip' | undefined;
  readonly resource: OtlpResourceOptions;
  readonly logger: OtlpSinkLogger | undefined;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) throw new ArgumentError(`OtlpLogSink: ${name} must be a positive integer (got ${value})`);
  return value;
}

/** Applies the defaults and rejects values the SDK would misread; throws ArgumentError. */
export function resolveOptions(options: OtlpLogSinkOptions): ResolvedOptions {
  const protocol = options.protocol ?? DEFAULT_PROTOCOL;
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new ArgumentError(`OtlpLogSink: protocol must be http/protobuf or http/json (got ${String(protocol)})`);
  }
  if (options.endpoint !== undefined && !URL.canParse(options.endpoint.url)) {
    throw new ArgumentError(`OtlpLogSink: endpoint is not a URL: ${options.endpoint.url}`);
  }
  return {
    url: options.endpoint?.url,
    endpoint: options.endpoint ?? directEndpoint('otlp', SDK_DEFAULT_URL),
    protocol,
    headers: { ...options.headers },
    timeoutMs: positiveInteger('timeoutMs', options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    maxBatch: positiveInteger('maxBatch', options.maxBatch ?? DEFAULT_MAX_BATCH),
    ackMarginMs: positiveInteger('ackMarginMs', options.ackMarginMs ?? DEFAULT_ACK_MARGIN_MS),
    compression: options.compression,
    resource: options.resource,
    logger: options.logger,
  };
}
