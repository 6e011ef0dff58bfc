// What the status page knows of the two jobs that retry in place rather than
// ending a run: the WAF forwarder's deliveries (a batch is retried until the
// OTLP receiver confirms it, while the engine sees one long run) and the
// remote-write sender's pushes (a loop of its own). Each is watched where it
// already reports: the log sink the forwarder delivers to, and the sender's
// observer. One watch per built config, like the jobs it watches.
import type { Clock } from '../../shared/clock.js';
import type { LogBatch, LogSink } from '../../forwarder/index.js';
import { describeError } from '../../shared/errors.js';
import type { PushObserver, RequestFailure } from '../../exporters/remote-write/index.js';
import type { JobError } from '../../server/index.js';

export interface Watched {
  readonly lastRunAt?: number;
  readonly lastSuccessAt?: number;
  readonly lastOutcome?: 'success' | 'error';
  readonly lastError?: JobError;
  readonly failing?: { readonly since: number; readonly attempts: number };
}

/** The system clock, for a daemon given none. */
export const SYSTEM_CLOCK: Clock = Object.freeze({ now: () => Date.now() });

export class JobWatch {
  private state: Watched = {};

  constructor(private readonly clock: Clock) {}

  get watched(): Watched {
    return this.state;
  }

  succeeded(): void {
    const at = this.clock.now();
    this.state = { lastRunAt: at, lastSuccessAt: at, lastOutcome: 'success' };
  }

  /** `retried`: the attempt is made again (a refusal that gives the data up is an error, but nothing is failing since). */
  failed(error: JobError, retried = true): void {
    const at = this.clock.now();
    const { failing, ...rest } = this.state;
    this.state = {
      ...rest,
      lastRunAt: at,
      lastOutcome: 'error',
      lastError: error,
      ...(retried ? { failing: { since: failing?.since ?? at, attempts: (failing?.attempts ?? 0) + 1 } } : {}),
    };
  }
}

/** `sink`, each delivery's outcome also recorded in `watch`. */
export function watchedSink(sink: LogSink, watch: JobWatch): LogSink {
  return {
    maxBatch: sink.maxBatch,
    batch: () => sink.batch(),
    deliver: async (batch: LogBatch, signal?: AbortSignal) => {
      try {
        await sink.deliver(batch, signal);
      } catch (err) {
        // A stop's abort is no failure of the receiver.
        if (!signal?.aborted) watch.failed(jobError(describeError(err)));
        throw err;
      }
      watch.succeeded();
    },
  };
}

/** `observer`, each push's outcome also recorded in `watch` (a failure's code is the outcome label of the request metric). */
export function watchedObserver(observer: PushObserver, watch: JobWatch): PushObserver {
  return {
    samplesSent: (count) => observer.samplesSent(count),
    samplesFailed: (count, reason) => observer.samplesFailed(count, reason),
    samplesRetried: (count) => observer.samplesRetried(count),
    // A success is watched once the push is settled and its newest sample known, not at the 2xx itself:
    // the sender records the pages first, and a row read in between would say success without the lag.
    pushed: (newest) => {
      observer.pushed(newest);
      watch.succeeded();
    },
    requestDuration: (seconds, outcome) => observer.requestDuration(seconds, outcome),
    requestFailed: (failure: RequestFailure) => {
      observer.requestFailed?.(failure);
      // A 4xx other than 429 settles the pages `refused`: not retried.
      if (failure.outcome !== 'aborted') watch.failed(jobError({ code: failure.outcome, ...failure }), failure.outcome !== 'refused');
    },
  };
}

/** Only the fields a row shows (a RunError also carries operation and status). */
export function jobError(e: JobError): JobError {
  return {
    code: e.code,
    message: e.message,
    ...(e.address === undefined ? {} : { address: e.address }),
    ...(e.hint === undefined ? {} : { hint: e.hint }),
  };
}
