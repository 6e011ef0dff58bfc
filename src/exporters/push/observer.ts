// What the sender reports, declared here by it: the daemon implements the observer with self-metrics and passes its logger.

/**
 * Why samples did not reach the receiver, a closed set (a metric label):
 * - `refused`: the receiver answered a 4xx other than 429 (a bad request it
 *   will refuse again, e.g. out-of-order or too-old samples): the pages are
 *   settled `refused` and not retried.
 * The history source counts its own reason, `overflow` (pages dropped when
 * more than max_pending_samples wait), under the same metric.
 */
export type SampleFailureReason = 'refused';

/**
 * How one POST ended, a closed set (a metric label):
 * - `success`: 2xx;
 * - `refused`: a 4xx other than 429 (not retried);
 * - `throttled`: 429 (retried);
 * - `server_error`: 5xx (retried);
 * - `network_error`: no answer, time-out included (retried);
 * - `local_error`: not sent, e.g. a credentials file unreadable (retried);
 * - `aborted`: cut short by stop's deadline.
 */
export type RequestOutcome = 'success' | 'refused' | 'throttled' | 'server_error' | 'network_error' | 'local_error' | 'aborted';

/** Called synchronously; an observer that throws is logged, never lets the sender fail. */
export interface PushObserver {
  /** Samples the receiver confirmed (2xx). */
  samplesSent(count: number): void;
  /** Samples settled without being stored by the receiver. */
  samplesFailed(count: number, reason: SampleFailureReason): void;
  /** The samples of a request, each time it is about to be tried again. */
  samplesRetried(count: number): void;
  /** After a confirmed request, once its pages are settled: the newest sample time (epoch ms) it carried, for the lag of the newest pushed bucket. */
  pushed(newestTimestampMs: number): void;
  /** Every POST (retries each count), in seconds. */
  requestDuration(seconds: number, outcome: RequestOutcome): void;
  /** A POST that did not succeed (retried, or refused), with what the log line says of it: for the status page. */
  requestFailed?(failure: RequestFailure): void;
}

/** One failed POST: its outcome (the metric's label) and, as far as known, the answer or where the connection failed. */
export interface RequestFailure {
  readonly outcome: Exclude<RequestOutcome, 'success'>;
  readonly message: string;
  readonly address?: string;
  readonly hint?: string;
}

/** The narrow logger the sender writes to (pino fits). Structured fields; never a credential. */
export interface PushLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
