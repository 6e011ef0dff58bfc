// PushSender: the loop that takes a history source's heads, pushes them one request at a time, and settles
// them; one per pipe (remote-write, OTLP metrics), which give it their encoding and their protocol's headers.
import pRetry from 'p-retry';
import { urlAddress } from '../../outbound/index.js';
import { pause } from '../../shared/wait.js';
import { EdgeError, InternalError } from '../../shared/errors.js';
import { composeBatch, type Batch } from './batch.js';
import { PushClient, type PushTransport, type SendOutcome } from './client.js';
import type { PushLogger, PushObserver, RequestFailure, RequestOutcome, SampleFailureReason } from './observer.js';
import { DEFAULT_STOP_DEADLINE_MS, resolveSenderOptions, type PushSenderOptions, type ResolvedSenderOptions } from './options.js';
import type { HistoryPage, HistorySource, PageSettlement } from './source.js';

/** What makes a pipe of the sender: its name in log lines, its encoding and its protocol's headers. */
export interface PushProtocol {
  /** Starts every log line: `remote write`, `OTLP metrics`. */
  readonly name: string;
  /** The pages as one request body. */
  encode(pages: readonly HistoryPage[]): Uint8Array;
  /** Content-type and the protocol's own headers; they win over configured ones. */
  readonly headers: Readonly<Record<string, string>>;
}

interface PushSenderDeps {
  /** Replaces the HTTP client (tests). */
  readonly transport?: PushTransport;
  /** Epoch ms, for the batch deadline (tests). Default Date.now. */
  readonly now?: () => number;
}

type State = 'new' | 'started' | 'stopping' | 'stopped';

/** Thrown inside p-retry for an answer worth another try (5xx, 429, no answer). */
class RetryableOutcome extends EdgeError {
  readonly code = 'EDGE_RETRYABLE';
  constructor(readonly outcome: SendOutcome) {
    super(describe(outcome));
  }
}

function describe(outcome: SendOutcome): string {
  switch (outcome.kind) {
    case 'status':
      return `HTTP ${outcome.status}${outcome.message === '' ? '' : `: ${outcome.message}`}`;
    case 'network':
    case 'local':
      return outcome.error;
    case 'aborted':
      return 'aborted';
  }
}

function classify(outcome: SendOutcome): RequestOutcome {
  switch (outcome.kind) {
    case 'status':
      if (outcome.status >= 200 && outcome.status < 300) return 'success';
      if (outcome.status === 429) return 'throttled';
      return outcome.status >= 500 ? 'server_error' : 'refused';
    case 'network':
      return 'network_error';
    case 'local':
      return 'local_error';
    case 'aborted':
      return 'aborted';
  }
}

/**
 * Why one request at a time: a receiver refuses a sample older than the
 * newest it has of that series, so two requests in flight carrying pages of
 * one owner could arrive in the wrong order. Why settle() is awaited before
 * the next request: it makes the confirmation durable, and the next head of
 * an owner is only known once the previous one has left the queue.
 *
 * Retry policy (Prometheus'): 5xx, 429, no answer and local errors are
 * retried with exponential backoff from minBackoffMs to maxBackoffMs until
 * they succeed or the sender stops, a 429's or 503's Retry-After (capped at
 * 5 minutes) waited out before the backoff; any other answer that is not 2xx (a 4xx:
 * the receiver will refuse the same body again) settles the pages `refused`.
 * Pages never confirmed stay in the source, which persists them.
 */
export class PushSender {
  private readonly options: ResolvedSenderOptions;
  private readonly transport: PushTransport;
  private readonly now: () => number;
  private readonly logger: PushLogger | undefined;
  private readonly observer: PushObserver | undefined;
  private state: State = 'new';
  private loop: Promise<void> = Promise.resolve();
  private unsubscribe: (() => void) | undefined;
  /** Ends naps, backoff waits and stops retries at stop; a request in flight goes on. */
  private readonly stopping = new AbortController();
  /** Ends the request in flight: stop's deadline. */
  private readonly cutting = new AbortController();
  /** Wakes the loop from a nap (new pages, a flush, stop). */
  private wake: (() => void) | undefined;
  private flushWaiters: (() => void)[] = [];
  private stopped: Promise<void> | undefined;
  /** host:port of the receiver, for a failure it answered. */
  private readonly address: string;

  constructor(
    private readonly source: HistorySource,
    private readonly protocol: PushProtocol,
    options: PushSenderOptions,
    deps: PushSenderDeps = {},
  ) {
    this.options = resolveSenderOptions(options);
    this.logger = options.logger;
    this.observer = options.observer;
    this.now = deps.now ?? Date.now;
    this.address = urlAddress(options.endpoint.url);
    this.transport =
      deps.transport ??
      new PushClient({
        endpoint: options.endpoint,
        protocolHeaders: protocol.headers,
        timeoutMs: this.options.timeoutMs,
        ...(options.headers === undefined ? {} : { headers: options.headers }),
        ...(options.auth === undefined ? {} : { auth: options.auth }),
        ...(options.userAgent === undefined ? {} : { userAgent: options.userAgent }),
      });
  }

  /** Starts the loop. Idempotent; a stopped sender does not start again. */
  start(): Promise<void> {
    if (this.state === 'stopping' || this.state === 'stopped') return Promise.reject(new InternalError(`${this.protocol.name} sender: cannot start after stop`));
    if (this.state === 'new') {
      this.state = 'started';
      this.unsubscribe = this.source.onPages(() => this.wake?.());
      this.loop = this.run();
    }
    return Promise.resolve();
  }

  /**
   * Pushes everything pending now, not waiting for batchSendDeadline.
   * Resolves when the source has no page left, or the sender stops, or
   * `signal` aborts (the receiver may be down: retries go on forever).
   */
  flush(signal?: AbortSignal): Promise<void> {
    if (this.state !== 'started' || signal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        signal?.removeEventListener('abort', done);
        this.flushWaiters = this.flushWaiters.filter((w) => w !== done);
        resolve();
      };
      this.flushWaiters.push(done);
      signal?.addEventListener('abort', done, { once: true });
      this.wake?.();
    });
  }

  /**
   * Takes no new request; the one in flight may finish until `deadlineMs`
   * (default 5000), then is aborted. Pages not confirmed stay in the source.
   * Resolves once the loop has ended and the connections are closed. Idempotent.
   */
  stop(options: { readonly deadlineMs?: number } = {}): Promise<void> {
    this.stopped ??= (async () => {
      const wasRunning = this.state === 'started';
      this.state = 'stopping';
      this.unsubscribe?.();
      this.stopping.abort();
      this.wake?.();
      if (wasRunning) {
        const deadline = new AbortController();
        void pause(options.deadlineMs ?? DEFAULT_STOP_DEADLINE_MS, deadline.signal).then(() => this.cutting.abort());
        try {
          await this.loop;
        } finally {
          deadline.abort();
        }
      }
      this.releaseFlushes();
      await this.transport.close();
      this.state = 'stopped';
    })();
    return this.stopped;
  }

  private releaseFlushes(): void {
    for (const waiter of [...this.flushWaiters]) waiter();
  }

  private async run(): Promise<void> {
    while (this.state === 'started') {
      let batch: Batch | undefined;
      try {
        batch = composeBatch(this.source.heads(), this.options.maxSamplesPerSend, this.options.batchSendDeadlineMs, this.now());
      } catch (error) {
        this.logger?.error({ err: errorMessage(error) }, `${this.protocol.name}: reading the history source failed`);
        await pause(this.options.maxBackoffMs, this.stopping.signal);
        continue;
      }
      if (batch === undefined) {
        this.releaseFlushes();
        await this.nap(undefined);
        continue;
      }
      if (!batch.full && batch.dueInMs > 0 && this.flushWaiters.length === 0) {
        await this.nap(batch.dueInMs);
        continue;
      }
      try {
        await this.push(batch.pages, batch.samples);
      } catch (error) {
        // Only a bug gets here (push turns every answer into a settlement or a retry); the loop must outlive it.
        this.logger?.error({ err: errorMessage(error), samples: batch.samples }, `${this.protocol.name}: pushing failed unexpectedly; the pages stay pending`);
        await pause(this.options.maxBackoffMs, this.stopping.signal);
      }
    }
  }

  /** Until `ms` pass (undefined: no timer) or something wakes the loop. Made synchronously after composing, so no wake-up is lost. */
  private nap(ms: number | undefined): Promise<void> {
    if (this.state !== 'started') return Promise.resolve();
    const woken = new AbortController();
    this.wake = () => woken.abort();
    const slept =
      ms === undefined
        ? new Promise<void>((resolve) => woken.signal.addEventListener('abort', () => resolve(), { once: true }))
        : pause(ms, woken.signal);
    return slept.finally(() => {
      this.wake = undefined;
    });
  }

  /** One request, retried until it has an answer that settles it, or the sender stops. */
  private async push(pages: readonly HistoryPage[], samples: number): Promise<void> {
    if (samples === 0) {
      // Nothing to tell the receiver; the pages still have to leave their queues.
      await this.settle(pages, 'sent');
      return;
    }
    const body = this.protocol.encode(pages);
    let final: SendOutcome | undefined;
    // A failure spell is logged twice: a warning at its first failed attempt, a line when an answer settles it (retries, how long).
    let failingSince: number | undefined;
    let retries = 0;
    try {
      await pRetry(
        async () => {
          const started = performance.now();
          if (failingSince !== undefined) retries++;
          const outcome = await this.transport.send(body, this.cutting.signal);
          this.notify((o) => o.requestDuration((performance.now() - started) / 1000, classify(outcome)));
          const kind = classify(outcome);
          if (kind !== 'success' && kind !== 'refused') throw new RetryableOutcome(outcome);
          if (failingSince !== undefined) {
            const durationSeconds = Math.round(performance.now() - failingSince) / 1000;
            this.logger?.info({ samples, retries, durationSeconds }, `${this.protocol.name}: the receiver answered again after ${retries} retries over ${durationSeconds}s`);
          }
          // Kept here: p-retry throws the stop signal's reason even after a success, and a success must still be settled.
          final = outcome;
        },
        {
          retries: Number.POSITIVE_INFINITY,
          factor: 2,
          minTimeout: this.options.minBackoffMs,
          maxTimeout: this.options.maxBackoffMs,
          signal: this.stopping.signal,
          unref: true,
          onFailedAttempt: async ({ error, attemptNumber }) => {
            if (this.stopping.signal.aborted) return;
            failingSince ??= performance.now();
            this.notify((o) => o.samplesRetried(samples));
            const outcome = error instanceof RetryableOutcome ? error.outcome : undefined;
            if (outcome !== undefined) this.notify((o) => o.requestFailed?.(failureOf(outcome, this.address)));
            const fields = {
              attempt: attemptNumber,
              samples,
              ...(outcome?.kind === 'status' ? { status: outcome.status } : {}),
              ...(outcome !== undefined && outcome.kind !== 'status' && outcome.kind !== 'aborted' && outcome.code !== undefined
                ? { code: outcome.code }
                : {}),
              ...(outcome?.kind === 'network' ? where(outcome) : {}),
              err: error.message,
            };
            if (attemptNumber === 1) this.logger?.warn(fields, `${this.protocol.name}: request failed; retrying with backoff until the receiver answers (one line when it does)`);
            else this.logger?.debug(fields, `${this.protocol.name}: request failed again; retrying`);
            // The receiver's own pause (429, 503 with Retry-After) comes before the backoff p-retry adds.
            if (outcome?.kind === 'status' && outcome.retryAfterMs !== undefined) await pause(outcome.retryAfterMs, this.stopping.signal);
          },
        },
      );
    } catch (error) {
      if (final === undefined) {
        if (this.state === 'started') {
          // Not an answer, not a stop: a bug below. Back off rather than spin; the pages stay.
          this.logger?.error({ err: errorMessage(error), samples }, `${this.protocol.name}: request failed unexpectedly`);
          await pause(this.options.maxBackoffMs, this.stopping.signal);
        } else {
          this.logger?.info({ samples, pages: pages.length }, `${this.protocol.name}: stopped before the receiver confirmed; the samples stay pending`);
        }
        return;
      }
    }
    const outcome = final as SendOutcome | undefined;
    if (outcome === undefined) return;
    if (classify(outcome) === 'success') {
      await this.settle(pages, 'sent');
      let newest = Number.NEGATIVE_INFINITY;
      for (const page of pages) for (const sample of page.samples) if (sample.timestampMs > newest) newest = sample.timestampMs;
      this.notify((o) => o.samplesSent(samples));
      this.notify((o) => o.pushed(newest));
      this.logger?.debug({ samples, pages: pages.length }, `${this.protocol.name}: receiver confirmed`);
      return;
    }
    const reason: SampleFailureReason = 'refused';
    this.notify((o) => o.requestFailed?.(failureOf(outcome, this.address)));
    await this.settle(pages, 'refused');
    this.notify((o) => o.samplesFailed(samples, reason));
    this.logger?.warn(
      {
        status: outcome.kind === 'status' ? outcome.status : undefined,
        error: outcome.kind === 'status' ? outcome.message : describe(outcome),
        samples,
        pages: pages.map((p) => `${p.owner}#${p.seq}`),
      },
      `${this.protocol.name}: receiver refused the request; its samples are dropped`,
    );
  }

  /** A settle that fails (disk): the confirmation is not on disk, so a restart before the next one is recorded pushes those pages again (duplicates the receiver accepts); the sender pauses before going on. */
  private async settle(pages: readonly HistoryPage[], how: PageSettlement): Promise<void> {
    try {
      await this.source.settle(pages, how);
    } catch (error) {
      this.logger?.error({ err: errorMessage(error), how, pages: pages.length }, `${this.protocol.name}: recording the outcome failed; a restart before the next one is recorded pushes these pages again`);
      await pause(this.options.maxBackoffMs, this.stopping.signal);
    }
  }

  private notify(call: (observer: PushObserver) => void): void {
    if (this.observer === undefined) return;
    try {
      call(this.observer);
    } catch (error) {
      this.logger?.error({ err: errorMessage(error) }, `${this.protocol.name}: observer failed`);
    }
  }
}

/** A failed POST for the observer: a network failure's address and hint, else the receiver's (`address`). */
function failureOf(outcome: SendOutcome, address: string): RequestFailure {
  const kind = classify(outcome);
  const failed = kind === 'success' ? 'refused' : kind;
  if (outcome.kind === 'network') return { outcome: failed, message: outcome.error, ...where(outcome) };
  return { outcome: failed, message: describe(outcome), ...(outcome.kind === 'status' ? { address } : {}) };
}

/** A failed connection's address, proxy (masked) and hint, for the log line. */
function where(outcome: Extract<SendOutcome, { kind: 'network' }>): Record<string, string> {
  const fields = { address: outcome.address, proxy: outcome.proxy, hint: outcome.hint };
  return Object.fromEntries(Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined));
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
