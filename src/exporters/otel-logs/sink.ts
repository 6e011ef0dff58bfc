// OtlpLogSink: a LogSink whose deliver() resolves only when the OTLP receiver has confirmed every record.
import { context } from '@opentelemetry/api';
import { ExportResultCode, suppressTracing, type ExportResult } from '@opentelemetry/core';
import type { LogRecordExporter } from '@opentelemetry/sdk-logs';
import { DeliveryError, type LogBatch, type LogSink } from '../../forwarder/index.js';
import { resolveOptions, type OtlpLogSinkOptions, type ResolvedOptions } from './options.js';
import { createPipeline, type BatchExporter, type Pipeline } from './pipeline.js';
import { SinkBatch } from './sink-batch.js';
import { NOT_NEEDED, pause, settlesWithin } from '../../shared/wait.js';
import { duplicatesOf, summarizeExportError } from './util.js';
import { maskUrl } from '../../outbound/index.js';
import { EdgeError, InternalError } from '../../shared/errors.js';

interface OtlpLogSinkDeps {
  /** Replaces the OTLP/HTTP exporter (tests). */
  readonly exporter?: LogRecordExporter;
}

type State = 'new' | 'started' | 'stopped';

/**
 * A batch (batch()) takes each event's record as the forwarder adds it,
 * encoded at once for http/protobuf (sink-batch.ts), and is the sink's own
 * until the receiver confirmed it, when the memory its records took is used
 * again. Each deliver() is one call of the OTLP exporter with the whole batch
 * (pipeline.ts: serialized as the SDK's Logger would emit its events); deliver()
 * calls run one at a time, and success is read from that export's result
 * (exportBatch), which settles the whole batch. The SDK's batch processor
 * is not used: it dropped records beyond its queue, never retried, resolved
 * forceFlush() whatever the export's result, and cost an emit per record.
 */
export class OtlpLogSink implements LogSink {
  readonly maxBatch: number;
  private readonly options: ResolvedOptions;
  private state: State = 'new';
  private readonly pipeline: Pipeline;
  private exporter: BatchExporter | undefined;
  /** Settles when the last deliver()'s export has called back (bounded); never rejects. */
  private tail: Promise<void> = Promise.resolve();
  private stopping: Promise<void> | undefined;

  constructor(
    options: OtlpLogSinkOptions,
    deps: OtlpLogSinkDeps = {},
  ) {
    this.options = resolveOptions(options);
    this.maxBatch = this.options.maxBatch;
    this.pipeline = createPipeline(this.options, deps.exporter);
  }

  /** How long a record may wait for its export result before it counts as failed. */
  get ackDeadlineMs(): number {
    return this.options.timeoutMs + this.options.ackMarginMs;
  }

  /** Builds the exporter. Idempotent; a stopped sink does not start again. */
  start(): Promise<void> {
    if (this.state === 'stopped') return Promise.reject(new InternalError('OtlpLogSink: cannot start after stop'));
    if (this.state === 'new') {
      this.exporter = this.pipeline.exporter();
      this.state = 'started';
    }
    return Promise.resolve();
  }

  /** A new, empty batch: each event's record is taken as it is added. */
  batch(): SinkBatch {
    return this.pipeline.batch();
  }

  /**
   * Resolves when the receiver has answered 2xx for every event of `batch`,
   * which is then spent; otherwise rejects with a DeliveryError naming the
   * uids not confirmed (all of them for a batch refused up front: larger
   * than maxBatch, duplicate uids, confirmed already, not this sink's kind,
   * the sink not started or shut down). Never hangs: an event without an
   * export result after timeoutMs + ackMarginMs counts as failed, and so does
   * every unconfirmed event once `signal` aborts.
   */
  async deliver(batch: LogBatch, signal?: AbortSignal): Promise<void> {
    if (!(batch instanceof SinkBatch)) throw new DeliveryError('a batch the OTLP log sink did not make; nothing was sent', []);
    const uids = batch.uids;
    if (uids.length === 0) return;
    if (uids.length > this.maxBatch) {
      throw new DeliveryError(`a batch of ${uids.length} log events exceeds maxBatch ${this.maxBatch}; nothing was sent`, uids);
    }
    const duplicates = duplicatesOf(uids);
    if (duplicates.length > 0) {
      throw new DeliveryError(`duplicate log.record.uid in one batch (${duplicates.join(', ')}); nothing was sent`, uids);
    }
    if (this.state !== 'started') {
      throw new DeliveryError(`the OTLP log sink is ${this.state === 'new' ? 'not started' : 'shut down'}; nothing was sent`, uids);
    }
    if (batch.spent) throw new DeliveryError('a batch the OTLP receiver confirmed already; nothing was sent', uids);
    return this.deliverInTurn(batch, signal);
  }

  /** Waits for deliveries in progress, then flushes the exporter. */
  async flush(): Promise<void> {
    await this.tail;
    await this.exporter?.forceFlush();
  }

  /** Refuses new deliveries, lets those accepted finish, then flushes and shuts the SDK down. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.state = 'stopped';
      await this.tail;
      await this.exporter?.shutdown();
    })();
    return this.stopping;
  }

  private async deliverInTurn(batch: SinkBatch, signal: AbortSignal | undefined): Promise<void> {
    const uids = batch.uids;
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    let answered: Promise<void> = Promise.resolve();
    try {
      await abortable(previous, signal);
      const exporter = this.exporter;
      if (exporter === undefined) throw new InternalError('OtlpLogSink: no exporter');
      signal?.throwIfAborted();
      const exported = exportBatch(exporter, batch, this.ackDeadlineMs, signal, (result) => this.onResult(uids.length, result));
      answered = exported.answered;
      const outcome = await exported.outcome;
      if (!outcome.confirmed) {
        const { message, detail } = this.failure(outcome.cause);
        throw new DeliveryError(`${uids.length} log records not confirmed by the OTLP receiver: ${message}`, uids, { cause: outcome.cause, detail });
      }
      // Never sent again: the memory its records took is used again.
      batch.spend();
      this.options.logger?.debug({ records: uids.length }, 'OTLP receiver confirmed log records');
    } catch (error) {
      if (error instanceof DeliveryError) throw error;
      const { message, detail } = this.failure(error);
      throw new DeliveryError(`log records not delivered: ${message}`, uids, { cause: error, detail });
    } finally {
      // One export at a time: the next deliver() waits for this one's result (bounded).
      void previous.then(() => settlesWithin(answered, this.ackDeadlineMs)).then(release);
    }
  }

  /**
   * Every export result, also one that comes after its deadline: a failure is
   * logged at debug. The warning is the caller's, once per failure spell
   * (forwarder/deliver.ts), from the DeliveryError carrying the same
   * fields: a warning here too made two per retry.
   */
  private onResult(records: number, result: ExportResult): void {
    if (result.code !== ExportResultCode.SUCCESS) {
      const { message, detail } = this.failure(result.error);
      this.options.logger?.debug({ records, error: message, ...detail }, 'OTLP log export failed');
    }
  }

  /** A failed export described one way for the DeliveryError and the debug line: the endpoint (masked) and what failed there. */
  private failure(cause: unknown): { readonly message: string; readonly detail: Readonly<Record<string, string | number>> } {
    const { message, ...detail } = summarizeExportError(cause, this.options.endpoint);
    return { message, detail: { endpoint: maskUrl(this.options.endpoint.url), ...detail } };
  }
}

/** Why a batch counts as failed when its export result did not come in time. */
class AcknowledgementTimeout extends EdgeError {
  readonly code = 'EDGE_OTLP_ACK_TIMEOUT';
  constructor(readonly timeoutMs: number) {
    super(`no export result within ${timeoutMs} ms`);
  }
}

type Outcome = { readonly confirmed: true } | { readonly confirmed: false; readonly cause: unknown };

interface Export {
  /**
   * Confirmed when the exporter called back SUCCESS (the receiver answered
   * 2xx, after the SDK's own retries; an OTLP partial success is logged by the
   * SDK and still reported as SUCCESS, so it counts as delivered). Otherwise
   * the export error, or why the wait ended first: the deadline, the signal's
   * abort. Never rejects.
   */
  readonly outcome: Promise<Outcome>;
  /** Resolves once the exporter has called back, whatever the result and however late. */
  readonly answered: Promise<void>;
}

/**
 * One export of the whole batch, as the batch processor made it (tracing
 * suppressed around it). Its one result callback is the only place that
 * knows whether the receiver took the batch, so it settles every record of
 * it at once. `onResult` sees each result once, also a late one.
 */
function exportBatch(
  exporter: BatchExporter, batch: SinkBatch, deadlineMs: number, signal: AbortSignal | undefined,
  onResult: (result: ExportResult) => void,
): Export {
  let answer!: (result: ExportResult) => void;
  const result = new Promise<ExportResult>((resolve) => (answer = resolve));
  let called = false;
  const callback = (exported: ExportResult): void => {
    if (called) return; // an exporter must call back once; make sure of it
    called = true;
    onResult(exported);
    answer(exported);
  };
  try {
    context.with(suppressTracing(context.active()), () => exporter.export(batch, callback));
  } catch (error) {
    callback({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new InternalError(String(error), { cause: error }) });
  }
  const outcome = new Promise<Outcome>((resolve) => {
    const deadline = new AbortController();
    const finish = (ended: Outcome): void => {
      deadline.abort(NOT_NEEDED);
      signal?.removeEventListener('abort', onAbort);
      resolve(ended);
    };
    const onAbort = (): void => finish({ confirmed: false, cause: signal?.reason });
    void result.then((exported) => finish(exported.code === ExportResultCode.SUCCESS
      ? { confirmed: true }
      : { confirmed: false, cause: exported.error ?? new InternalError('export failed') }));
    void pause(deadlineMs, deadline.signal).then(() => {
      if (!deadline.signal.aborted) finish({ confirmed: false, cause: new AcknowledgementTimeout(deadlineMs) });
    });
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  return { outcome, answered: result.then(() => undefined) };
}

/** Waits for `promise` unless the signal aborts first (then throws its reason). */
function abortable(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return promise;
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    void promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
