// The WAF event forwarder: polls the deny records window by window
// (window.ts), drops repeats, converts, and delivers them to a LogSink in
// batches no larger than the sink takes, saving the checkpoint after every
// confirmed batch (delivery-book.ts). A crash re-sends at most the batch in flight;
// nothing confirmed before it is sent again, and nothing is skipped. It runs
// once at start, then every interval, never overlapping itself; upstream
// failures are logged and retried on the next poll, delivery failures are
// retried in place (deliver.ts) while polling waits. Sharded, each poll reads
// only the domains of this replica (scope.ts).
import { pause } from '../../shared/wait.js';
import { MismatchReporter } from '../contract/reporter.js';
import { describeError, errorFields, failureMessage } from '../poller-errors.js';
import type { Clock } from '../types.js';
import { CHECKPOINT_NAME } from './checkpoint.js';
import { headerPolicy, type HeaderPolicy } from './convert.js';
import { DEFAULT_DELIVERY_RETRY, deliverBatch, type DeliveryContext, type DeliveryRetry } from './deliver.js';
import { drainWindow } from './drain.js';
import type { WafQuery } from './fetch.js';
import { WAF_EVENTS_COLLECTOR, type WafEventsObserver, type WafEventsStats } from './metrics.js';
import { pageMismatches } from './mismatches.js';
import type { PollReport, WafEventForwarderOptions } from './options.js';
import { DeliveryBook } from './delivery-book.js';
import { planWindow, type TimeWindow } from './window.js';

export type { PollReport, WafEventForwarderOptions } from './options.js';

interface Totals {
  read: number;
  deduplicated: number;
  forwarded: number;
  exportFailures: number;
}

const SYSTEM_CLOCK: Clock = Object.freeze({ now: () => Date.now() });

export class WafEventForwarder {
  private readonly o: WafEventForwarderOptions;
  private readonly clock: Clock;
  private readonly policy: HeaderPolicy;
  private readonly retry: DeliveryRetry;
  private readonly book: DeliveryBook;
  private readonly controller = new AbortController();
  private readonly mismatches: MismatchReporter;
  private readonly totals: Totals = { read: 0, deduplicated: 0, forwarded: 0, exportFailures: 0 };
  private loading: Promise<void> | undefined;
  private starting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  private polling: Promise<PollReport> | undefined;
  private loop: Promise<void> | undefined;

  constructor(options: WafEventForwarderOptions) {
    this.o = options;
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.policy = headerPolicy(options.headers);
    this.retry = { ...DEFAULT_DELIVERY_RETRY, ...options.retry };
    this.mismatches = new MismatchReporter({
      log: options.log, clock: this.clock,
      observer: { onMismatch: (check, count) => this.notify((ob) => ob.onMismatch?.(check, count)) },
    });
    this.book = new DeliveryBook({
      store: options.store,
      samples: options.samples,
      log: options.log,
      clock: this.clock,
      maxSeries: options.maxSeries ?? 10_000,
      ...(options.recovery ? { recovery: options.recovery } : {}),
      onSaved: (cursorMs) => {
        const lag = Math.max(0, (this.clock.now() - cursorMs) / 1000);
        this.notify((ob) => ob.onCheckpointLag?.(lag));
      },
    });
    if (options.signal?.aborted) void this.stop();
    else options.signal?.addEventListener('abort', () => void this.stop(), { once: true });
  }

  /** Loads the checkpoint (a damaged one rejects, naming the file), then polls now and every interval. Idempotent. */
  start(): Promise<void> {
    this.starting ??= (async () => {
      await this.load();
      if (!this.stopping) this.loop = this.run();
    })();
    return this.starting;
  }

  /** Aborts a poll or retry in flight, waits for it, saves unsaved state. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= this.doStop();
    return this.stopping;
  }

  /** One poll, joining the one in flight: the forwarder never reads two windows at once. */
  pollOnce(): Promise<PollReport> {
    this.polling ??= this.poll().finally(() => {
      this.polling = undefined;
    });
    return this.polling;
  }

  stats(): WafEventsStats {
    const cursor = this.book.cursorMs;
    return {
      ...this.totals,
      checkpointLagSeconds: cursor === undefined ? undefined : Math.max(0, (this.clock.now() - cursor) / 1000),
      droppedFromCounter: this.book.droppedFromCounter,
    };
  }

  /** Reads the checkpoint once (start() and every poll do it first); a damaged one rejects unless reset. */
  load(): Promise<void> {
    this.loading ??= (async () => {
      const restored = await this.book.load(this.o.startBackMs, this.o.delayMs);
      const { originMs, cursorMs } = this.book.checkpoint;
      this.o.log.info({ restored, originMs, cursorMs, file: this.o.store.pathOf(CHECKPOINT_NAME) }, 'WAF event checkpoint loaded');
    })();
    return this.loading;
  }

  private async run(): Promise<void> {
    const signal = this.controller.signal;
    while (!signal.aborted) {
      const began = this.clock.now();
      await this.pollOnce();
      await pause(Math.max(0, began + this.o.intervalMs - this.clock.now()), signal);
    }
  }

  private async poll(): Promise<PollReport> {
    const signal = this.controller.signal;
    const before = this.totals.forwarded;
    let windows = 0;
    const report = (error?: unknown): PollReport => ({
      ok: error === undefined,
      windows,
      forwarded: this.totals.forwarded - before,
      cursorMs: this.book.cursorMs,
      ...(error === undefined ? {} : { error: describeError(error) }),
    });
    try {
      await this.load();
      await this.book.saveIfDirty();
      const query = await this.queryOf(signal);
      for (;;) {
        signal.throwIfAborted();
        const now = this.clock.now();
        const window = planWindow(this.book.checkpoint, now, this.o);
        if (!window) return report();
        const behindMs = now - this.o.delayMs - this.book.checkpoint.cursorMs;
        const delivered = query === undefined ? 0 : await this.drain(window, query, signal);
        await this.book.advance(window.endMs, this.o.overlapMs);
        windows++;
        this.logWindow(window, delivered, behindMs);
      }
    } catch (err) {
      if (signal.aborted) this.o.log.info({}, 'WAF event poll stopped');
      else this.o.log.warn(errorFields(err), failureMessage(err, 'WAF event poll'));
      return report(err);
    }
  }

  /** This poll's query: the configured one, or this shard's domains; undefined when the shard owns none. */
  private async queryOf(signal: AbortSignal): Promise<WafQuery | undefined> {
    const scope = this.o.scope;
    if (!scope) return this.o.query;
    const domains = await scope.domains(this.clock.now(), signal);
    // No request at all: `domains: []` would read every domain of the account.
    return domains.length === 0 ? undefined : { ...this.o.query, domains };
  }

  private drain(window: TimeWindow, query: WafQuery, signal: AbortSignal): Promise<number> {
    const delivery: DeliveryContext = {
      sink: this.o.sink,
      signal,
      retry: this.retry,
      log: this.o.log,
      confirm: (events) => {
        // Forwarded once the receiver confirmed, whether or not the save that follows succeeds.
        this.count('forwarded', events.length, (ob) => ob.onForwarded?.(events.length));
        return this.book.confirm(events, window.endMs);
      },
      failed: (events, code) => this.count('exportFailures', 1, (ob) => ob.onExportFailure?.({ events, code })),
    };
    return drainWindow(window, {
      reader: { client: this.o.client, tz: this.o.tz, query, signal },
      policy: this.policy,
      maxBatch: this.o.sink.maxBatch,
      offsetMinutes: this.o.tz.offsetMinutes,
      now: () => this.clock.now(),
      isDelivered: (uid) => this.book.has(uid),
      refresh: (uids) => this.book.refresh(uids, window.endMs),
      deliver: (batch) => deliverBatch(batch, delivery),
      onPage: (read, repeats, evidence) => {
        this.count('read', read, (ob) => ob.onRead?.(read));
        this.count('deduplicated', repeats, (ob) => ob.onDeduplicated?.(repeats));
        this.mismatches.report(WAF_EVENTS_COLLECTOR, pageMismatches(window, evidence, this.o.tz));
      },
    });
  }

  private logWindow(window: TimeWindow, delivered: number, behindMs: number): void {
    const fields = {
      from: this.o.tz.formatDateTime(window.startMs),
      to: this.o.tz.formatDateTime(window.endMs),
      delivered,
      remainingLagSeconds: Math.max(0, Math.round((this.clock.now() - this.o.delayMs - window.endMs) / 1000)),
    };
    // Catching up a backlog is worth an operator's eye; the steady state is not.
    if (behindMs > this.o.maxWindowMs) this.o.log.info(fields, 'WAF event backlog: window delivered');
    else this.o.log.debug(fields, 'WAF event window delivered');
  }

  private count(total: keyof Totals, n: number, call: (ob: WafEventsObserver) => void): void {
    if (n === 0) return;
    this.totals[total] += n;
    this.notify(call);
  }

  /** An observer's bug must not stop forwarding. */
  private notify(call: (ob: WafEventsObserver) => void): void {
    if (!this.o.observer) return;
    try {
      call(this.o.observer);
    } catch (err) {
      this.o.log.error(errorFields(err), 'WAF event observer failed');
    }
  }

  private async doStop(): Promise<void> {
    await this.starting?.catch(() => undefined);
    this.controller.abort();
    await this.loop;
    await this.polling?.catch(() => undefined);
    await this.book.saveIfDirty().catch(() => undefined);
    this.o.log.info({}, 'WAF event forwarder stopped');
  }
}
