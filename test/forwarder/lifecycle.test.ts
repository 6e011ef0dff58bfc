// The forwarder's own schedule under fake timers, with a scripted client and
// an in-memory state store (no sockets, no disk, so fake time is all there
// is): a poll at start then every interval, never two at once; a receiver
// outage backs off exponentially with jitter up to the cap while polling
// waits; stop() is idempotent and cuts a retry short; upstream failures are
// retried on the next interval.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { z } from 'zod';
import { NetworkError, platformClock, type DescribeLogV2Request, type DescribeLogV2Answer, type WafLogRecord } from '../../src/api/index.js';
import { wafLogRecord } from '../../src/api/schemas/waf-log.js';
import type { StateJournal } from '../../src/state/store.js';
import type { CheckpointStorage } from '../../src/forwarder/checkpoint.js';
import type { WafEventForwarderOptions } from '../../src/forwarder/options.js';
import { createSimulator } from '../../src/simulator/index.js';
import { BASE, DENY, FakeSink, LastSamples, MIN, forwarding, recordingLogger, S, T0, type Forwarding, type LogLine } from './fakes.js';

const tz = platformClock('+08:00');
const RECORDS = createSimulator({ clock: { mode: 'fixed', start: T0 }, domains: 6 })
  .truth.wafEvents(T0 - 20 * MIN, T0 + 20 * MIN)
  .filter((e) => e.record.response.httpCode === DENY)
  .map((e) => wafLogRecord.parse(e.record));

class MemoryStore implements CheckpointStorage {
  readonly files = new Map<string, string>();
  async init(): Promise<void> {}
  pathOf(name: string): string {
    return `/memory/${name}.json`;
  }
  async load<T>(name: string, schema: z.ZodType<T>): Promise<T | undefined> {
    const text = this.files.get(name);
    return text === undefined ? undefined : schema.parse((JSON.parse(text) as { data: unknown }).data);
  }
  async save(name: string, value: unknown): Promise<void> {
    this.files.set(name, JSON.stringify({ version: 1, data: value }));
  }
  journal(name: string): StateJournal {
    const key = `${name}.journal`;
    return {
      path: `/memory/${key}`,
      read: async () => ({ entries: (this.files.get(key) ?? '').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as unknown), torn: false }),
      append: async (values) => void this.files.set(key, (this.files.get(key) ?? '') + values.map((v) => `${JSON.stringify(v)}\n`).join('')),
      truncate: async () => void this.files.set(key, ''),
    };
  }
}

/** describeLogV2 over RECORDS as the simulator would answer (desc order, paged); can hang or fail. */
class ScriptedClient {
  readonly calls: DescribeLogV2Request[] = [];
  hold: Promise<void> | undefined;
  failures = 0;

  async describeLogV2(req: DescribeLogV2Request): Promise<DescribeLogV2Answer> {
    this.calls.push(req);
    if (this.hold) await this.hold;
    if (this.failures > 0) {
      this.failures--;
      throw new NetworkError('connect ECONNREFUSED', { operation: 'describeLogV2' });
    }
    const begin = tz.parseDateTime(req.params.beginTime);
    const end = tz.parseDateTime(req.params.endTime);
    const time = (r: WafLogRecord): number => Date.parse(r.timeStamp);
    const rows = RECORDS.filter((r) => time(r) >= begin && time(r) < end).sort((a, b) => time(b) - time(a));
    const { pageNo = 1, pageSize = 10 } = req.action[0] ?? {};
    return { code: 200, msg: 'success', data: [{ metricName: 'logs', list: rows.slice((pageNo - 1) * pageSize, pageNo * pageSize), objectArrayList: [] }] };
  }

  /** Windows started (page 1 requests): the polls, when each reads one window. */
  polls(): number {
    return this.calls.filter((c) => c.action[0]?.pageNo === 1).length;
  }
}

let lines: LogLine[] = [];
const forwarders: Forwarding[] = [];

function build(client: ScriptedClient, sink: FakeSink, extra: Partial<WafEventForwarderOptions> = {}, signal?: AbortSignal): Forwarding {
  const f = forwarding({
    ...BASE, startBackMs: 10 * MIN, query: { pageSize: 100 },
    client, tz, sink, samples: new LastSamples(), store: new MemoryStore(), log: recordingLogger(lines), ...extra,
  }, signal);
  forwarders.push(f);
  return f;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  vi.setSystemTime(T0);
  lines = [];
});

afterEach(async () => {
  await Promise.all(forwarders.splice(0).map((f) => f.stop()));
  vi.useRealTimers();
});

describe('WafEventForwarder schedule', () => {
  it('polls at start-up, then every interval, never two polls at once', async () => {
    const client = new ScriptedClient();
    // No overlap: no final passes, one window per poll caught up (page 1 requests count the polls).
    const f = build(client, new FakeSink(50), { overlapMs: 0 });
    await f.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(client.polls()).toBe(1);
    await vi.advanceTimersByTimeAsync(30 * S);
    await vi.advanceTimersByTimeAsync(30 * S);
    expect(client.polls()).toBe(3);

    let release = (): void => undefined;
    client.hold = new Promise((resolve) => {
      release = resolve;
    });
    await vi.advanceTimersByTimeAsync(30 * S);
    expect(client.polls()).toBe(4);
    // The upstream hangs for five intervals: no second poll starts meanwhile.
    await vi.advanceTimersByTimeAsync(5 * 30 * S);
    expect(client.polls()).toBe(4);
    client.hold = undefined;
    release();
    // Its interval long past, the next poll follows at once.
    await vi.advanceTimersByTimeAsync(0);
    expect(client.polls()).toBe(5);
    const stopping = f.stop();
    expect(f.stop()).toBe(stopping);
    await stopping;
    await vi.advanceTimersByTimeAsync(10 * 30 * S);
    expect(client.polls()).toBe(5);
  });

  it('an upstream failure is logged and retried on the next interval, nothing lost', async () => {
    const client = new ScriptedClient();
    client.failures = 1;
    const sink = new FakeSink(50);
    const f = build(client, sink);
    await f.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(sink.attempts).toBe(0);
    expect(lines.some((l) => l.level === 'warn' && l.msg === 'WAF event poll failed' && l.fields.code === 'EDGE_NETWORK')).toBe(true);
    await vi.advanceTimersByTimeAsync(30 * S);
    const expected = RECORDS.filter((r) => Date.parse(r.timeStamp) >= T0 - 10 * MIN && Date.parse(r.timeStamp) < T0 + 30 * S - 2 * MIN);
    expect(new Set(sink.uids())).toEqual(new Set(expected.map((r) => r.requestId)));
  });
});

describe('WafEventForwarder while the receiver is down', () => {
  it('backs off exponentially with jitter up to the cap, polls nothing meanwhile, then delivers', async () => {
    const client = new ScriptedClient();
    const sink = new FakeSink(500);
    sink.failures = 6;
    const attempts: number[] = [];
    const upstreamCalls: number[] = [];
    sink.onAttempt = () => {
      attempts.push(Date.now());
      upstreamCalls.push(client.calls.length);
    };
    const f = build(client, sink, { retry: { minDelayMs: 1000, maxDelayMs: 8000 } });
    await f.start();
    for (let i = 0; i < 60 && sink.batches.length === 0; i++) await vi.advanceTimersByTimeAsync(S);
    // Six failures, then the same batch confirmed whole.
    expect(attempts.slice(0, 7)).toHaveLength(7);
    const first = RECORDS.filter((r) => Date.parse(r.timeStamp) >= T0 - 10 * MIN && Date.parse(r.timeStamp) < T0 - 2 * MIN);
    expect(new Set(sink.batches[0]?.map((e) => e.uid))).toEqual(new Set(first.map((r) => r.requestId)));
    const delays = attempts.slice(1, 7).map((t, i) => t - (attempts[i] ?? 0));
    delays.forEach((d, i) => {
      expect(d, `delay ${i}`).toBeGreaterThanOrEqual(Math.min(1000 * 2 ** i, 8000));
      expect(d, `delay ${i}`).toBeLessThanOrEqual(Math.min(2000 * 2 ** i, 8000));
    });
    // An interval passed during the outage, yet every attempt came after the same two requests (the window's one
    // short page and the empty one that shows it was the last, fetch.ts): polling waited.
    expect(attempts[6]).toBeGreaterThan(T0 + 30 * S);
    expect(upstreamCalls.slice(0, 7)).toEqual([2, 2, 2, 2, 2, 2, 2]);
    expect(f.stats().exportFailures).toBe(6);
  });

  it('stop() cuts a retry short and resolves without waiting for the backoff', async () => {
    const sink = new FakeSink(500);
    sink.failures = Number.POSITIVE_INFINITY;
    const f = build(new ScriptedClient(), sink, { retry: { minDelayMs: 60_000, maxDelayMs: 60_000 } });
    await f.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(sink.attempts).toBe(1);
    await f.stop();
    expect(sink.attempts).toBe(1);
    expect(lines.some((l) => l.msg === 'WAF event forwarder stopped')).toBe(true);
    // The failure spell the stop ended is closed in the log: one warning, one line at the stop.
    expect(lines.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual([expect.stringMatching(/^delivering WAF events failed/)]);
    expect(lines.filter((l) => l.fields['retries'] !== undefined).map((l) => [l.level, l.msg, l.fields['retries']]))
      .toEqual([['info', 'stopped while delivering WAF events was failing; the batch is read again on the next poll', 0]]);
  });

  it('the AbortSignal it was given stops it like stop()', async () => {
    const sink = new FakeSink(500);
    sink.failures = Number.POSITIVE_INFINITY;
    const shutdown = new AbortController();
    const client = new ScriptedClient();
    const f = build(client, sink, { retry: { minDelayMs: 60_000, maxDelayMs: 60_000 } }, shutdown.signal);
    await f.start();
    await vi.advanceTimersByTimeAsync(0);
    shutdown.abort();
    await f.stop();
    await vi.advanceTimersByTimeAsync(5 * MIN);
    expect(sink.attempts).toBe(1);
    expect(client.polls()).toBe(1);
  });
});
