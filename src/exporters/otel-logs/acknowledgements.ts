// Waiters for delivery confirmations: one per uid, settled by an export result, a deadline or an abort signal.
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { pause } from '../../shared/wait.js';

/** How one expect() ended. */
export interface Settlement {
  /** Uids not acknowledged SUCCESS, in the order they were expected. */
  readonly failed: readonly string[];
  /** The first export error, or why the wait ended early (time-out, abort). */
  readonly cause?: unknown;
}

interface Waiter {
  settle(uid: string, result: ExportResult): void;
}

/** Raised as a Settlement cause when an export result did not come in time. */
export class AcknowledgementTimeout extends Error {
  readonly code = 'EDGE_OTLP_ACK_TIMEOUT';
  constructor(readonly timeoutMs: number) {
    super(`no export result within ${timeoutMs} ms`);
    this.name = 'AcknowledgementTimeout';
  }
}

export class Acknowledgements {
  private readonly waiting = new Map<string, Waiter>();

  /** Uids currently awaited. */
  get pending(): number {
    return this.waiting.size;
  }

  /**
   * Waits for every uid's export result. Never rejects: resolves once all are
   * settled, or at the deadline, or when the signal aborts, with the uids not
   * confirmed. A uid is awaited by one caller at a time.
   */
  expect(uids: readonly string[], timeoutMs: number, signal?: AbortSignal): Promise<Settlement> {
    const taken = uids.filter((uid) => this.waiting.has(uid));
    if (taken.length > 0) return Promise.reject(new Error(`uids already awaited: ${taken.join(', ')}`));
    return new Promise<Settlement>((resolve) => {
      const confirmed = new Set<string>();
      let open = uids.length;
      let cause: unknown;
      let done = false;
      const finish = (): void => {
        if (done) return;
        done = true;
        deadline.abort();
        signal?.removeEventListener('abort', onAbort);
        for (const uid of uids) if (this.waiting.get(uid) === waiter) this.waiting.delete(uid);
        resolve({ failed: uids.filter((uid) => !confirmed.has(uid)), cause });
      };
      const waiter: Waiter = {
        settle: (uid, result) => {
          this.waiting.delete(uid);
          if (result.code === ExportResultCode.SUCCESS) confirmed.add(uid);
          else cause ??= result.error ?? new Error('export failed');
          open -= 1;
          if (open === 0) finish();
        },
      };
      const onAbort = (): void => {
        cause ??= signal?.reason;
        finish();
      };
      const deadline = new AbortController();
      void pause(timeoutMs, deadline.signal).then(() => {
        if (done) return;
        cause ??= new AcknowledgementTimeout(timeoutMs);
        finish();
      });
      for (const uid of uids) this.waiting.set(uid, waiter);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
      if (uids.length === 0) finish();
    });
  }

  /** From the confirming exporter. Uids nobody awaits (a late result after a time-out) are ignored. */
  settle(uids: readonly string[], result: ExportResult): void {
    for (const uid of uids) this.waiting.get(uid)?.settle(uid, result);
  }
}
