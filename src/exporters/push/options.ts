// PushSender's options, their defaults (Prometheus' own, as the config's), and their checks.
import type { PushAuth } from './client.js';
import type { Endpoint } from '../../outbound/index.js';
import type { PushLogger, PushObserver } from './observer.js';
import { ArgumentError } from '../../shared/errors.js';

export interface PushSenderOptions {
  /** The receiver (e.g. http://prometheus:9090/api/v1/write), the proxy route to it and its TLS block. */
  readonly endpoint: Endpoint;
  /** Per request, answer included. Default 30000. */
  readonly timeoutMs?: number;
  /** Extra headers sent with every request (X-Scope-OrgID...). Default none. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Default none. */
  readonly auth?: PushAuth;
  /** Most samples in one request (one page larger than this still goes alone). Default 2000. */
  readonly maxSamplesPerSend?: number;
  /** Longest the oldest page waits for others to fill a request, counted from its createdMs. Default 5000. */
  readonly batchSendDeadlineMs?: number;
  /** First wait before a retry; doubled after each failure. Default 30. */
  readonly minBackoffMs?: number;
  /** Longest wait between retries. Default 5000. */
  readonly maxBackoffMs?: number;
  /** Default `edge-exporter`. */
  readonly userAgent?: string;
  /** Default: no logging. */
  readonly logger?: PushLogger;
  /** Default: none. */
  readonly observer?: PushObserver;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_SAMPLES_PER_SEND = 2_000;
const DEFAULT_BATCH_SEND_DEADLINE_MS = 5_000;
const DEFAULT_MIN_BACKOFF_MS = 30;
const DEFAULT_MAX_BACKOFF_MS = 5_000;
/** stop()'s default: how long the request in flight may still take. */
export const DEFAULT_STOP_DEADLINE_MS = 5_000;

export interface ResolvedSenderOptions {
  readonly maxSamplesPerSend: number;
  readonly batchSendDeadlineMs: number;
  readonly minBackoffMs: number;
  readonly maxBackoffMs: number;
  readonly timeoutMs: number;
}

function integerAtLeast(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) throw new ArgumentError(`PushSender: ${name} must be an integer >= ${min} (got ${value})`);
  return value;
}

/** Applies the defaults; throws ArgumentError on a value the loop would misread. */
export function resolveSenderOptions(options: PushSenderOptions): ResolvedSenderOptions {
  const minBackoffMs = integerAtLeast('minBackoffMs', options.minBackoffMs ?? DEFAULT_MIN_BACKOFF_MS, 1);
  const maxBackoffMs = integerAtLeast('maxBackoffMs', options.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS, 1);
  if (maxBackoffMs < minBackoffMs) throw new ArgumentError(`PushSender: maxBackoffMs (${maxBackoffMs}) must be at least minBackoffMs (${minBackoffMs})`);
  return {
    maxSamplesPerSend: integerAtLeast('maxSamplesPerSend', options.maxSamplesPerSend ?? DEFAULT_MAX_SAMPLES_PER_SEND, 1),
    batchSendDeadlineMs: integerAtLeast('batchSendDeadlineMs', options.batchSendDeadlineMs ?? DEFAULT_BATCH_SEND_DEADLINE_MS, 0),
    minBackoffMs,
    maxBackoffMs,
    timeoutMs: integerAtLeast('timeoutMs', options.timeoutMs ?? DEFAULT_TIMEOUT_MS, 1),
  };
}
