import { resourceFromAttributes } from '@opentelemetry/resources';
import { afterEach, describe, expect, it } from 'vitest';
import { OtlpMetricsSender } from '../../../src/exporters/otlp-metrics/index.js';
import { RemoteWriteSender } from '../../../src/exporters/remote-write/index.js';
import { type PushLogger, type PushObserver, type RequestOutcome } from '../../../src/exporters/push/observer.js';
import type { RemoteWriteSenderOptions } from '../../../src/exporters/remote-write/index.js';
import { directEndpoint } from '../../../src/outbound/index.js';
import { startOtlpMetricsReceiver } from '../../support/otlp-metrics-receiver.js';
import { freePort } from '../../support/ports.js';
import { FakeSource, labelsOf, samples, startReceiver, until, type Receiver } from '../remote-write/support.js';

class RecordingObserver implements PushObserver {
  sent: number[] = [];
  failed: [number, string][] = [];
  retried: number[] = [];
  newest: number[] = [];
  outcomes: RequestOutcome[] = [];
  samplesSent(count: number): void {
    this.sent.push(count);
  }
  samplesFailed(count: number, reason: string): void {
    this.failed.push([count, reason]);
  }
  samplesRetried(count: number): void {
    this.retried.push(count);
  }
  pushed(newestTimestampMs: number): void {
    this.newest.push(newestTimestampMs);
  }
  requestDuration(seconds: number, outcome: RequestOutcome): void {
    expect(seconds).toBeGreaterThanOrEqual(0);
    this.outcomes.push(outcome);
  }
}

class RecordingLogger implements PushLogger {
  lines: { level: string; obj: Record<string, unknown>; msg: string | undefined }[] = [];
  debug(obj: object, msg?: string): void {
    this.lines.push({ level: 'debug', obj: { ...obj }, msg });
  }
  info(obj: object, msg?: string): void {
    this.lines.push({ level: 'info', obj: { ...obj }, msg });
  }
  warn(obj: object, msg?: string): void {
    this.lines.push({ level: 'warn', obj: { ...obj }, msg });
  }
  error(obj: object, msg?: string): void {
    this.lines.push({ level: 'error', obj: { ...obj }, msg });
  }
}

let receiver: Receiver | undefined;
let sender: RemoteWriteSender | undefined;
afterEach(async () => {
  await sender?.stop({ deadlineMs: 100 });
  await receiver?.close();
  sender = undefined;
  receiver = undefined;
});

interface Harness {
  source: FakeSource;
  observer: RecordingObserver;
  logger: RecordingLogger;
  sender: RemoteWriteSender;
}

function makeSender(url: string, options: Partial<RemoteWriteSenderOptions> = {}, now?: () => number): Harness {
  const source = new FakeSource();
  const observer = new RecordingObserver();
  const logger = new RecordingLogger();
  sender = new RemoteWriteSender(
    source,
    { endpoint: directEndpoint('remote_write', url), minBackoffMs: 1, maxBackoffMs: 5, batchSendDeadlineMs: 0, timeoutMs: 5_000, observer, logger, ...options },
    now === undefined ? {} : { now },
  );
  return { source, observer, logger, sender };
}

const T0 = 1_764_000_000_000;

describe('RemoteWriteSender: outcomes', () => {
  it('pushes a page, settles it sent, and reports its samples and newest time', async () => {
    receiver = await startReceiver();
    const h = makeSender(receiver.url, { externalLabels: { job: 'edge-exporter' } });
    h.source.add('cdn', [...samples('cdn', 2, T0), ...samples('cdn', 1, T0 + 60_000).map((s) => ({ ...s, name: 'edge_bytes_total' }))]);
    await h.sender.start();
    await h.sender.flush();
    expect(h.source.settled).toEqual([{ pages: [{ owner: 'cdn', seq: 1 }], how: 'sent' }]);
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]?.series.map((s) => [labelsOf(s), s.samples])).toEqual([
      [{ __name__: 'edge_requests_total', i: '0', job: 'edge-exporter', owner: 'cdn' }, [{ value: 0, timestamp: T0 }]],
      [{ __name__: 'edge_requests_total', i: '1', job: 'edge-exporter', owner: 'cdn' }, [{ value: 1, timestamp: T0 }]],
      [{ __name__: 'edge_bytes_total', i: '0', job: 'edge-exporter', owner: 'cdn' }, [{ value: 0, timestamp: T0 + 60_000 }]],
    ]);
    expect(h.observer.sent).toEqual([3]);
    expect(h.observer.newest).toEqual([T0 + 60_000]);
    expect(h.observer.outcomes).toEqual(['success']);
    expect(h.observer.retried).toEqual([]);
  });

  it('retries 5xx until the receiver takes the request, then settles it once', async () => {
    receiver = await startReceiver((i) => (i < 2 ? { status: 503, body: 'overloaded' } : { status: 200 }));
    const h = makeSender(receiver.url);
    h.source.add('cdn', samples('cdn', 4, T0));
    await h.sender.start();
    await h.sender.flush();
    expect(receiver.requests).toHaveLength(3);
    expect(receiver.requests.every((r) => r.body.equals(receiver?.requests[0]?.body ?? Buffer.alloc(0)))).toBe(true);
    expect(h.source.settled).toEqual([{ pages: [{ owner: 'cdn', seq: 1 }], how: 'sent' }]);
    expect(h.observer.retried).toEqual([4, 4]);
    expect(h.observer.sent).toEqual([4]);
    expect(h.observer.outcomes).toEqual(['server_error', 'server_error', 'success']);
    // One failure spell: one warning at its start, the repeat at debug, one line when the receiver takes it.
    const warnings = h.logger.lines.filter((l) => l.level === 'warn');
    expect(warnings.map((w) => w.obj)).toEqual([{ attempt: 1, samples: 4, status: 503, err: 'HTTP 503: overloaded' }]);
    expect(h.logger.lines.filter((l) => l.level === 'debug' && l.obj['attempt'] !== undefined).map((l) => l.obj))
      .toEqual([{ attempt: 2, samples: 4, status: 503, err: 'HTTP 503: overloaded' }]);
    const recovered = h.logger.lines.filter((l) => l.level === 'info' && l.obj['retries'] !== undefined);
    expect(recovered.map((l) => l.obj)).toEqual([{ samples: 4, retries: 2, durationSeconds: expect.any(Number) as number }]);
    expect(recovered[0]?.msg).toMatch(/^remote write: the receiver answered again after 2 retries over [\d.]+s$/);
  });

  it('retries 429', async () => {
    receiver = await startReceiver((i) => (i === 0 ? { status: 429, body: 'slow down' } : { status: 204 }));
    const h = makeSender(receiver.url);
    h.source.add('cdn', samples('cdn', 2, T0));
    await h.sender.start();
    await h.sender.flush();
    expect(receiver.requests).toHaveLength(2);
    expect(h.observer.outcomes).toEqual(['throttled', 'success']);
    expect(h.observer.retried).toEqual([2]);
    expect(h.source.settled).toEqual([{ pages: [{ owner: 'cdn', seq: 1 }], how: 'sent' }]);
  });

  it('settles a 400 refused at once, counts and logs it, and goes on with the next page', async () => {
    receiver = await startReceiver((i) => (i === 0 ? { status: 400, body: 'out of order sample' } : { status: 204 }));
    const h = makeSender(receiver.url, { auth: { type: 'bearer', token: 'tok-secret' } });
    h.source.add('cdn', samples('cdn', 3, T0));
    h.source.add('cdn', samples('cdn', 1, T0 + 60_000));
    await h.sender.start();
    await h.sender.flush();
    expect(receiver.requests).toHaveLength(2);
    expect(h.source.settled).toEqual([
      { pages: [{ owner: 'cdn', seq: 1 }], how: 'refused' },
      { pages: [{ owner: 'cdn', seq: 2 }], how: 'sent' },
    ]);
    expect(h.observer.failed).toEqual([[3, 'refused']]);
    expect(h.observer.retried).toEqual([]);
    expect(h.observer.sent).toEqual([1]);
    expect(h.observer.outcomes).toEqual(['refused', 'success']);
    const warning = h.logger.lines.find((l) => l.level === 'warn');
    expect(warning?.obj).toEqual({ status: 400, error: 'out of order sample', samples: 3, pages: ['cdn#1'] });
    expect(JSON.stringify(h.logger.lines)).not.toContain('tok-secret');
  });

  it('retries while nothing listens, and delivers once the receiver is up', async () => {
    const port = await freePort();
    const h = makeSender(`http://127.0.0.1:${port}/api/v1/write`);
    h.source.add('cdn', samples('cdn', 2, T0));
    await h.sender.start();
    await until(() => h.observer.retried.length >= 2);
    receiver = await startReceiver(undefined, { port });
    await h.sender.flush();
    expect(h.source.settled).toEqual([{ pages: [{ owner: 'cdn', seq: 1 }], how: 'sent' }]);
    expect(receiver.requests).toHaveLength(1);
    expect(h.observer.outcomes.at(-1)).toBe('success');
    expect(h.observer.outcomes.slice(0, -1).every((o) => o === 'network_error')).toBe(true);
    expect(h.logger.lines.filter((l) => l.level === 'warn').map((l) => l.obj)).toEqual([expect.objectContaining({ attempt: 1, samples: 2, code: 'ECONNREFUSED' })]);
    const failedAttempts = h.observer.outcomes.length - 1;
    expect(h.logger.lines.filter((l) => l.level === 'info' && l.obj['retries'] !== undefined).map((l) => l.obj))
      .toEqual([{ samples: 2, retries: failedAttempts, durationSeconds: expect.any(Number) as number }]);
  });

  it('keeps going when the observer throws', async () => {
    receiver = await startReceiver();
    const broken = new RecordingObserver();
    broken.samplesSent = () => {
      throw new Error('observer bug');
    };
    const h = makeSender(receiver.url, { observer: broken });
    h.source.add('a', samples('a', 1, T0));
    h.source.add('a', samples('a', 1, T0 + 1));
    await h.sender.start();
    await h.sender.flush();
    expect(h.source.settled.map((c) => c.how)).toEqual(['sent', 'sent']);
    expect(h.logger.lines.filter((l) => l.level === 'error').map((l) => l.obj)).toEqual([{ err: 'observer bug' }, { err: 'observer bug' }]);
    expect(broken.newest).toEqual([T0, T0 + 1]);
  });
});

describe('RemoteWriteSender: batching and order', () => {
  it('composes requests up to maxSamplesPerSend, oldest pages first, one page per owner', async () => {
    receiver = await startReceiver();
    const h = makeSender(receiver.url, { maxSamplesPerSend: 10 });
    h.source.add('a', samples('a', 4, T0), 100);
    h.source.add('a', samples('a', 4, T0 + 60_000), 400);
    h.source.add('b', samples('b', 5, T0), 200);
    h.source.add('c', samples('c', 3, T0), 300);
    await h.sender.start();
    await h.sender.flush();
    // a#1 + b#1 = 9; c#1 (3) does not fit. Then c#1 + a#2 = 7.
    expect(h.source.settled).toEqual([
      { pages: [{ owner: 'a', seq: 1 }, { owner: 'b', seq: 1 }], how: 'sent' },
      { pages: [{ owner: 'c', seq: 1 }, { owner: 'a', seq: 2 }], how: 'sent' },
    ]);
    expect(receiver.requests.map((r) => r.series.length)).toEqual([9, 7]);
    expect(receiver.requests[1]?.series.map((s) => [labelsOf(s).owner, s.samples[0]?.timestamp])).toEqual([
      ['c', T0], ['c', T0], ['c', T0], ['a', T0 + 60_000], ['a', T0 + 60_000], ['a', T0 + 60_000], ['a', T0 + 60_000],
    ]);
    expect(h.observer.sent).toEqual([9, 7]);
  });

  it('sends a page larger than maxSamplesPerSend alone', async () => {
    receiver = await startReceiver();
    const h = makeSender(receiver.url, { maxSamplesPerSend: 2 });
    h.source.add('a', samples('a', 5, T0), 1);
    h.source.add('b', samples('b', 1, T0), 2);
    await h.sender.start();
    await h.sender.flush();
    expect(receiver.requests.map((r) => r.series.length)).toEqual([5, 1]);
  });

  it('pushes one request at a time, each owner in seq order', async () => {
    let answered = 0;
    // Answers on a later turn, so a second request, if the sender sent one, would overlap.
    receiver = await startReceiver(() => new Promise((resolve) => setTimeout(() => resolve({ status: 204 }), 1 + (answered++ % 3))));
    const h = makeSender(receiver.url, { maxSamplesPerSend: 1 });
    for (let i = 0; i < 6; i += 1) {
      h.source.add('a', samples('a', 1, T0 + i * 60_000), i * 10);
      h.source.add('b', samples('b', 1, T0 + i * 60_000), i * 10 + 5);
    }
    await h.sender.start();
    await h.sender.flush();
    expect(receiver.maxInFlight()).toBe(1);
    const settled = h.source.settled.flatMap((c) => c.pages);
    expect(settled.filter((p) => p.owner === 'a').map((p) => p.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(settled.filter((p) => p.owner === 'b').map((p) => p.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(settled).toHaveLength(12);
    // Oldest first across owners: createdMs a1=0, b1=5, a2=10, ...
    expect(settled.slice(0, 4)).toEqual([{ owner: 'a', seq: 1 }, { owner: 'b', seq: 1 }, { owner: 'a', seq: 2 }, { owner: 'b', seq: 2 }]);
    const times = receiver.requests.filter((r) => labelsOf(r.series[0] ?? { labels: [], samples: [] }).owner === 'a').map((r) => r.series[0]?.samples[0]?.timestamp);
    expect(times).toEqual([0, 1, 2, 3, 4, 5].map((i) => T0 + i * 60_000));
  });

  it('waits for more pages before the deadline, and sends once the request is full', async () => {
    receiver = await startReceiver();
    const h = makeSender(receiver.url, { maxSamplesPerSend: 10, batchSendDeadlineMs: 60_000 }, () => 1_000);
    await h.sender.start();
    h.source.add('a', samples('a', 4, T0), 1_000);
    // The loop has composed with a's page alone, found it young and not full, and sleeps until its deadline.
    await until(() => h.source.headsCalls >= 2);
    expect(receiver.requests).toHaveLength(0);
    h.source.add('b', samples('b', 6, T0), 1_000);
    await until(() => h.source.settled.length === 1);
    expect(h.source.settled).toEqual([{ pages: [{ owner: 'a', seq: 1 }, { owner: 'b', seq: 1 }], how: 'sent' }]);
    expect(receiver.requests.map((r) => r.series.length)).toEqual([10]);
  });

  it('sends a partial request once its oldest page reaches the deadline', async () => {
    receiver = await startReceiver();
    let now = 1_000;
    const h = makeSender(receiver.url, { maxSamplesPerSend: 10, batchSendDeadlineMs: 20 }, () => now);
    h.source.add('a', samples('a', 2, T0), 1_000);
    await h.sender.start();
    await until(() => h.source.headsCalls >= 1);
    now = 1_020; // the page is 20 ms old when the loop wakes from its 20 ms nap
    await until(() => h.source.settled.length === 1);
    expect(h.source.settled).toEqual([{ pages: [{ owner: 'a', seq: 1 }], how: 'sent' }]);
    expect(receiver.requests.map((r) => r.series.length)).toEqual([2]);
  });

  it('flush sends a young, partial request at once', async () => {
    receiver = await startReceiver();
    const h = makeSender(receiver.url, { maxSamplesPerSend: 10, batchSendDeadlineMs: 3_600_000 }, () => 1_000);
    h.source.add('a', samples('a', 2, T0), 1_000);
    await h.sender.start();
    await until(() => h.source.headsCalls >= 1);
    await h.sender.flush();
    expect(h.source.settled).toEqual([{ pages: [{ owner: 'a', seq: 1 }], how: 'sent' }]);
    expect(h.source.pendingSamples()).toBe(0);
  });

  it('waits for settle() before composing the next request', async () => {
    receiver = await startReceiver();
    const h = makeSender(receiver.url);
    let release!: () => void;
    const requestsAtSettle: number[] = [];
    h.source.onSettle = (call) => {
      requestsAtSettle.push(receiver?.requests.length ?? -1);
      if (call.pages[0]?.seq === 1) return new Promise<void>((resolve) => (release = resolve));
    };
    h.source.add('a', samples('a', 1, T0));
    h.source.add('a', samples('a', 1, T0 + 1));
    await h.sender.start();
    const flushed = h.sender.flush();
    await until(() => requestsAtSettle.length === 1);
    release();
    await flushed;
    expect(requestsAtSettle).toEqual([1, 2]);
  });
});

describe('RemoteWriteSender: lifecycle', () => {
  it('stop during retries stops them and leaves the pages pending', async () => {
    receiver = await startReceiver(() => ({ status: 500 }));
    const h = makeSender(receiver.url);
    h.source.add('a', samples('a', 3, T0));
    await h.sender.start();
    const flushed = h.sender.flush();
    await until(() => (receiver?.requests.length ?? 0) >= 3);
    await h.sender.stop({ deadlineMs: 1_000 });
    await flushed; // released by the stop
    const count = receiver.requests.length;
    expect(h.source.settled).toEqual([]);
    expect(h.source.pendingSamples()).toBe(3);
    expect(h.source.listenerCount).toBe(0);
    expect(h.observer.sent).toEqual([]);
    expect(h.logger.lines.at(-1)).toEqual({
      level: 'info',
      obj: { samples: 3, pages: 1 },
      msg: 'remote write: stopped before the receiver confirmed; the samples stay pending',
    });
    // Started again? No: a stopped sender stays stopped, and sends nothing more.
    await expect(h.sender.start()).rejects.toThrow(/after stop/);
    h.source.add('a', samples('a', 1, T0 + 1));
    expect(receiver.requests.length).toBe(count);
  });

  it('stop aborts a request still unanswered at the deadline, leaving the page pending', async () => {
    receiver = await startReceiver(() => 'hang');
    const h = makeSender(receiver.url);
    h.source.add('a', samples('a', 2, T0));
    await h.sender.start();
    await receiver.received(1);
    await h.sender.stop({ deadlineMs: 20 });
    expect(h.source.settled).toEqual([]);
    expect(h.source.pendingSamples()).toBe(2);
    expect(h.observer.outcomes).toEqual(['aborted']);
    expect(h.observer.retried).toEqual([]);
  });

  it('stop lets a request in flight finish before the deadline and settles it', async () => {
    let answer!: (a: { status: number }) => void;
    receiver = await startReceiver(() => new Promise((resolve) => (answer = resolve)));
    const h = makeSender(receiver.url);
    h.source.add('a', samples('a', 2, T0));
    h.source.add('b', samples('b', 2, T0));
    await h.sender.start();
    await receiver.received(1);
    const stopped = h.sender.stop({ deadlineMs: 10_000 });
    answer({ status: 204 });
    await stopped;
    expect(h.source.settled).toEqual([{ pages: [{ owner: 'a', seq: 1 }, { owner: 'b', seq: 1 }], how: 'sent' }]);
    expect(receiver.requests).toHaveLength(1);
    expect(h.observer.sent).toEqual([4]);
  });

  it('is idempotent: start twice, stop twice; flush before start or after stop resolves', async () => {
    receiver = await startReceiver();
    const h = makeSender(receiver.url);
    h.source.add('a', samples('a', 1, T0));
    await h.sender.flush();
    expect(receiver.requests).toHaveLength(0);
    await h.sender.start();
    await h.sender.start();
    await h.sender.flush();
    expect(receiver.requests).toHaveLength(1);
    await Promise.all([h.sender.stop(), h.sender.stop()]);
    await h.sender.flush();
    expect(h.source.listenerCount).toBe(0);
  });

  it('flush returns when its signal aborts while the receiver keeps failing', async () => {
    receiver = await startReceiver(() => ({ status: 503 }));
    const h = makeSender(receiver.url);
    h.source.add('a', samples('a', 1, T0));
    await h.sender.start();
    const stop = new AbortController();
    const flushed = h.sender.flush(stop.signal);
    await until(() => (receiver?.requests.length ?? 0) >= 2);
    stop.abort();
    await flushed;
    expect(h.source.settled).toEqual([]);
  });

  it('outlives a source whose heads() throws: logs, backs off, goes on', async () => {
    receiver = await startReceiver();
    const h = makeSender(receiver.url);
    const heads = h.source.heads.bind(h.source);
    let failures = 1;
    h.source.heads = () => {
      if (failures-- > 0) throw new Error('queue damaged');
      return heads();
    };
    h.source.add('a', samples('a', 1, T0));
    await h.sender.start();
    await until(() => h.source.settled.length === 1);
    expect(h.logger.lines.filter((l) => l.level === 'error')).toEqual([
      { level: 'error', obj: { err: 'queue damaged' }, msg: 'remote write: reading the history source failed' },
    ]);
  });

  it('refuses options the loop would misread', () => {
    const source = new FakeSource();
    expect(() => new RemoteWriteSender(source, { endpoint: directEndpoint('remote_write', 'http://127.0.0.1:1/w'), maxSamplesPerSend: 0 })).toThrow(/maxSamplesPerSend/);
    expect(() => new RemoteWriteSender(source, { endpoint: directEndpoint('remote_write', 'http://127.0.0.1:1/w'), minBackoffMs: 10, maxBackoffMs: 5 })).toThrow(/maxBackoffMs/);
  });
});

describe('the receiver\'s own pause (Retry-After), over OTLP metrics', () => {
  let otlp: Awaited<ReturnType<typeof startOtlpMetricsReceiver>> | undefined;
  let pushing: OtlpMetricsSender | undefined;
  afterEach(async () => {
    await pushing?.stop({ deadlineMs: 100 });
    await otlp?.close();
    pushing = undefined;
    otlp = undefined;
  });

  /** A sender with a fake history of one page, against a receiver answering `first` then 200. */
  async function pushOnce(first: { status: number; retryAfter?: number }, backoff: { minBackoffMs: number; maxBackoffMs: number }) {
    otlp = await startOtlpMetricsReceiver();
    otlp.script([first]);
    const source = new FakeSource();
    const observer = new RecordingObserver();
    pushing = new OtlpMetricsSender(source, {
      endpoint: directEndpoint('otlp', otlp.url), ...backoff, batchSendDeadlineMs: 0, timeoutMs: 5_000, observer,
      encoding: 'http/protobuf', temporality: 'delta', intervalMs: 3_600_000,
      resource: resourceFromAttributes({ 'service.name': 'edge-exporter' }), scope: { name: 'edge-exporter', version: '0', schemaUrl: '' },
      def: () => undefined, snapshot: () => Promise.resolve([]), maxLabelValueLength: 256,
    });
    source.add('cdn', samples('cdn', 2, T0));
    await pushing.start();
    await pushing.flush();
    const [refused, taken] = otlp.requests();
    expect(otlp.requests()).toHaveLength(2);
    expect([refused?.status, taken?.status]).toEqual([first.status, 200]);
    expect(source.settled).toEqual([{ pages: [{ owner: 'cdn', seq: 1 }], how: 'sent' }]);
    expect(observer.retried).toEqual([2]);
    // From the refusal's answer to the next request's arrival: what the sender waited.
    return { waitedMs: (taken?.receivedAt ?? 0) - (refused?.answeredAt ?? 0), outcomes: observer.outcomes, retryAfter: refused?.retryAfter };
  }

  it('429 with Retry-After: 1 waits at least a second before the next attempt', async () => {
    const { waitedMs, outcomes, retryAfter } = await pushOnce({ status: 429, retryAfter: 1 }, { minBackoffMs: 1, maxBackoffMs: 5 });
    expect(retryAfter).toBe('1');
    expect(waitedMs).toBeGreaterThanOrEqual(1_000);
    expect(outcomes).toEqual(['throttled', 'success']);
  });

  it('503 with Retry-After: 1 waits at least a second too', async () => {
    const { waitedMs, outcomes } = await pushOnce({ status: 503, retryAfter: 1 }, { minBackoffMs: 1, maxBackoffMs: 5 });
    expect(waitedMs).toBeGreaterThanOrEqual(1_000);
    expect(outcomes).toEqual(['server_error', 'success']);
  });

  it('429 without Retry-After retries after the ordinary backoff: the first step, no second-long pause', async () => {
    // p-retry's first wait is minBackoffMs (factor 2, no randomness).
    const { waitedMs, outcomes, retryAfter } = await pushOnce({ status: 429 }, { minBackoffMs: 200, maxBackoffMs: 400 });
    expect(retryAfter).toBeUndefined();
    expect(waitedMs).toBeGreaterThanOrEqual(200);
    expect(waitedMs).toBeLessThan(1_000);
    expect(outcomes).toEqual(['throttled', 'success']);
  });
});
