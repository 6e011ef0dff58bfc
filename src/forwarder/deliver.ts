// Delivering one batch until the receiver confirms all of it. Failures are
// retried without limit, with exponential backoff and jitter capped at
// maxDelayMs, until the signal aborts (stop) between two attempts. While this runs the forwarder
// reads nothing more: the checkpoint holds the position upstream, so a long
// outage costs no memory beyond this batch. The sink confirms a batch whole
// or not at all (one export result settles it), so a failed batch is sent
// again whole; the receiver drops a repeat by its log.record.uid.
//
// The log tells a failure spell (the failed attempts of one batch) twice: a
// warning at its first failure, with where and why and what to do, and a line
// when the receiver confirms again, with how many retries it took and how
// long. The attempts between are debug lines; every one is still counted
// (ctx.failed, the export-failure self-metric).
import pRetry, { AbortError } from 'p-retry';
import { describeError, InternalError } from '../shared/errors.js';
import type { CollectorLogger } from '../collectors/collector.js';
import { DeliveryError, type LogEvent, type LogSink } from './log-sink.js';
import type { Outgoing } from './outgoing.js';

export interface DeliveryRetry {
  /** First backoff (default 1s). */
  readonly minDelayMs: number;
  /** Largest backoff (default 60s). */
  readonly maxDelayMs: number;
}

export const DEFAULT_DELIVERY_RETRY: DeliveryRetry = Object.freeze({ minDelayMs: 1000, maxDelayMs: 60_000 });

export interface DeliveryContext {
  readonly sink: LogSink;
  readonly signal: AbortSignal;
  readonly retry: DeliveryRetry;
  readonly log: CollectorLogger;
  /** Records a confirmed batch's events, as kept (and persists them); a failure here stops the delivery. */
  confirm(events: readonly LogEvent[]): Promise<void>;
  /** A failed attempt, for the export-failure self-metric. */
  failed(events: number, code: string): void;
}

/** Resolves once the receiver confirmed the whole batch and ctx.confirm recorded it. */
export async function deliverBatch(batch: Outgoing, ctx: DeliveryContext): Promise<void> {
  const records = batch.records.size;
  /** performance.now() at the spell's first failure; undefined while none failed. */
  let failingSince: number | undefined;
  let retries = 0;
  await pRetry(
    async () => {
      try {
        // A stop ends the wait between attempts, never an attempt: a batch handed over may reach the receiver, so its
        // answer is awaited (the sink bounds it) and a confirmed batch recorded before the stop completes. Otherwise a
        // reload or SIGTERM would send it again.
        ctx.signal.throwIfAborted();
        if (failingSince !== undefined) retries++;
        await ctx.sink.deliver(batch.records);
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        ctx.failed(records, describeError(err).code);
        failingSince ??= performance.now();
        throw err;
      }
      if (failingSince !== undefined) {
        const durationSeconds = Math.round(performance.now() - failingSince) / 1000;
        ctx.log.info({ events: records, retries, durationSeconds }, `the OTLP receiver confirmed WAF events again after ${retries} retries over ${durationSeconds}s`);
      }
      await confirmOrAbort(ctx, batch.events);
    },
    {
      retries: Number.POSITIVE_INFINITY,
      factor: 2,
      minTimeout: ctx.retry.minDelayMs,
      maxTimeout: ctx.retry.maxDelayMs,
      randomize: true,
      signal: ctx.signal,
      unref: true,
      onFailedAttempt: ({ error, attemptNumber }) => {
        if (ctx.signal.aborted) return;
        const { code, message } = describeError(error);
        const detail = error instanceof DeliveryError ? error.detail : {};
        // A failed connection's fields (address, reason, hint) say all its message says, so the line carries it once.
        const fields = { code, ...(detail['hint'] === undefined ? { error: message } : {}), ...detail, attempt: attemptNumber, events: records };
        if (attemptNumber === 1) ctx.log.warn(fields, 'delivering WAF events failed; retrying with backoff (polling waits), one line when the receiver confirms');
        else ctx.log.debug(fields, 'delivering WAF events failed again; retrying');
      },
    },
  ).catch((err: unknown) => {
    // A stop (SIGTERM, a reload) ends the spell too: said once, so no spell is left open in the log.
    if (ctx.signal.aborted && failingSince !== undefined) {
      const durationSeconds = Math.round(performance.now() - failingSince) / 1000;
      ctx.log.info({ events: records, retries, durationSeconds }, 'stopped while delivering WAF events was failing; the batch is read again on the next poll');
    }
    throw err;
  });
}

/** A confirmed batch that cannot be recorded must not be retried: that would send it again. */
async function confirmOrAbort(ctx: DeliveryContext, events: readonly LogEvent[]): Promise<void> {
  try {
    await ctx.confirm(events);
  } catch (err) {
    throw new AbortError(err instanceof Error ? err : new InternalError(String(err), { cause: err }));
  }
}

