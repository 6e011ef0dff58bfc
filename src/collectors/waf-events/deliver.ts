// Delivering one batch until the receiver confirms all of it. Failures are
// retried without limit, with exponential backoff and jitter capped at
// maxDelayMs, until the signal aborts (stop) between two attempts. While this runs the forwarder
// reads nothing more: the checkpoint holds the position upstream, so a long
// outage costs no memory beyond this batch. When the sink confirms part of a
// batch (DeliveryError naming the rest), the confirmed part is recorded
// first and only the rest is sent again.
import pRetry, { AbortError } from 'p-retry';
import { describeError } from '../engine/errors.js';
import { DeliveryError } from '../log-sink.js';
import type { CollectorLogger } from '../collector.js';
import type { LogEvent, LogSink } from '../log-sink.js';

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
  /** Records confirmed events (and persists them); a failure here stops the delivery. */
  confirm(events: readonly LogEvent[]): Promise<void>;
  /** A failed attempt, for the export-failure self-metric. */
  failed(events: number, code: string): void;
}

/** `onReceived`: the receiver confirmed the whole batch; its checkpoint save is about to start. */
export async function deliverBatch(batch: readonly LogEvent[], ctx: DeliveryContext, onReceived?: () => void): Promise<void> {
  let pending = batch;
  await pRetry(
    async () => {
      try {
        // A stop ends the wait between attempts, never an attempt: a batch handed over may reach the receiver, so its
        // answer is awaited (the sink bounds it) and a confirmed batch recorded before the stop completes. Otherwise a
        // reload or SIGTERM would send it again.
        ctx.signal.throwIfAborted();
        await ctx.sink.deliver(pending);
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        ctx.failed(pending.length, describeError(err).code);
        if (err instanceof DeliveryError) {
          const { confirmed, rest } = split(pending, err.failedUids);
          if (confirmed.length > 0) await confirmOrAbort(ctx, confirmed);
          pending = rest;
        }
        throw err;
      }
      onReceived?.();
      await confirmOrAbort(ctx, pending);
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
        ctx.log.warn({ ...describeError(error), attempt: attemptNumber, events: pending.length }, 'delivering WAF events failed; retrying with backoff (polling waits)');
      },
    },
  );
}

/** A confirmed batch that cannot be recorded must not be retried: that would send it again. */
async function confirmOrAbort(ctx: DeliveryContext, events: readonly LogEvent[]): Promise<void> {
  try {
    await ctx.confirm(events);
  } catch (err) {
    throw new AbortError(err instanceof Error ? err : new Error(String(err)));
  }
}

/**
 * The events the receiver confirmed and those it did not. A DeliveryError
 * that names none of the batch is taken as "nothing confirmed": sending an
 * event twice is recoverable (log.record.uid), losing one is not.
 */
function split(batch: readonly LogEvent[], failedUids: readonly string[]): { confirmed: LogEvent[]; rest: LogEvent[] } {
  const failed = new Set(failedUids);
  const rest = batch.filter((e) => failed.has(e.uid));
  if (rest.length === 0) return { confirmed: [], rest: [...batch] };
  return { confirmed: batch.filter((e) => !failed.has(e.uid)), rest };
}
