// The client's budget and its answer to throttling, against scripted HTTP
// (MockAgent) on a fake clock: when each request reaches the upstream, and
// what the observer hears.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MockAgent } from 'undici';
import { EdgeClient, type ClientObserver, type ClientOptions } from '../../src/api/client.js';
import { RateLimitedError } from '../../src/api/errors.js';
import { OK, usageRequest } from './requests.js';

const API = 'http://api.test';
const LOGIN = 'http://login.test';
const usagePath = '/prod-api/cdn/layer7/statistic/describeL7UsageData';
const logPath = '/prod-api/waf/wafv3/log/V2/describeLogV2';
const logRequest = { action: [{ metricName: 'logTread' as const }], params: usageRequest.params };

let agent: MockAgent;
beforeEach(() => {
  vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  agent = new MockAgent();
  agent.disableNetConnect();
});
afterEach(async () => {
  vi.useRealTimers();
  await agent.close();
});

function client(extra: Partial<ClientOptions> = {}): EdgeClient {
  return new EdgeClient({
    apiUrl: API, loginUrl: LOGIN, token: 'tok', dispatcher: agent,
    retry: { attempts: 3, minDelayMs: 1, maxDelayMs: 1 }, ...extra,
  });
}

/** Answers `path` on `origin` with `first` once, then OK; records when each request arrived (fake clock). */
function script(origin: string, path: string, first?: { status: number; headers?: Record<string, string> }): number[] {
  const arrivals: number[] = [];
  const pool = agent.get(origin);
  if (first) {
    pool.intercept({ path, method: 'POST' }).reply(first.status, () => {
      arrivals.push(Date.now());
      return { code: first.status, msg: 'busy' };
    }, { headers: first.headers ?? {} });
  }
  pool.intercept({ path, method: 'POST' }).reply(200, () => {
    arrivals.push(Date.now());
    return OK;
  }).persist();
  return arrivals;
}

describe('request budget', () => {
  it('lets at most rateLimit requests reach the upstream in any second, all of them in the end', async () => {
    const arrivals = script(API, usagePath);
    const waits = vi.fn();
    const c = client({ rateLimit: 2, observer: { onRateLimitWait: waits } });
    const calls = Promise.all(Array.from({ length: 5 }, () => c.describeL7UsageData(usageRequest)));
    await vi.advanceTimersByTimeAsync(10_000);
    await calls;
    // A slot is held 1 ms past the second (rate-gate.ts says why).
    expect(arrivals).toEqual([0, 0, 1001, 1001, 2002]);
    expect(waits).toHaveBeenCalledTimes(3);
    expect(c.ratePerSecond).toBe(2);
  });

  it('holds one operation to its own rate under rateLimits', async () => {
    const usage = script(API, usagePath);
    const logs = script(LOGIN, logPath);
    const c = client({ rateLimits: { describeL7UsageData: 1 } });
    const calls = Promise.all([
      ...Array.from({ length: 3 }, () => c.describeL7UsageData(usageRequest)),
      ...Array.from({ length: 3 }, () => c.describeLogV2(logRequest)),
    ]);
    await vi.advanceTimersByTimeAsync(10_000);
    await calls;
    expect(usage).toEqual([0, 1001, 2002]);
    expect(logs).toEqual([0, 0, 0]);
  });
});

describe('throttling', () => {
  it('a 429 with Retry-After pauses every request to that host until then, lowers the rate, and the read is retried after it', async () => {
    const usage = script(API, usagePath, { status: 429, headers: { 'retry-after': '3' } });
    const logs = script(LOGIN, logPath);
    const events: unknown[] = [];
    const observer: ClientObserver = {
      onThrottled: (e) => events.push({ throttled: e }),
      onRateChange: (e) => events.push({ rate: e.ratePerSecond }),
    };
    const c = client({ rateLimit: 10, observer });
    const first = c.describeL7UsageData(usageRequest);
    await vi.advanceTimersByTimeAsync(10);
    // Asked during the pause: the api host waits, the login host does not.
    const second = c.describeL7UsageData(usageRequest);
    const other = c.describeLogV2(logRequest);
    await vi.advanceTimersByTimeAsync(100);
    expect(logs).toEqual([10]);
    expect(usage).toEqual([0]);
    await vi.advanceTimersByTimeAsync(3000);
    await Promise.all([first, second, other]);
    expect(usage).toEqual([0, 3000, 3000]);
    expect(events.slice(0, 2)).toEqual([
      { rate: 5 },
      { throttled: { operation: 'describeL7UsageData', status: 429, host: API, retryAfterMs: 3000, ratePerSecond: 5, started: true } },
    ]);
    // The successes after the pause start the recovery.
    expect(c.ratePerSecond).toBeGreaterThan(5);
    expect(c.ratePerSecond).toBeLessThan(10);
  });

  it('a 503 with Retry-After pauses the host without lowering the rate', async () => {
    const usage = script(API, usagePath, { status: 503, headers: { 'retry-after': '2' } });
    const throttled = vi.fn();
    const ended = vi.fn();
    const c = client({ rateLimit: 10, observer: { onThrottled: throttled, onThrottleEnd: ended } });
    const call = c.describeL7UsageData(usageRequest);
    await vi.advanceTimersByTimeAsync(5000);
    await call;
    expect(usage).toEqual([0, 2000]);
    expect(throttled).toHaveBeenCalledWith(expect.objectContaining({ status: 503, retryAfterMs: 2000, ratePerSecond: 10, started: true }));
    expect(ended).toHaveBeenCalledWith({ ratePerSecond: 10 });
  });

  it('a 503 without Retry-After is an ordinary retryable failure: no pause, no throttling', async () => {
    const usage = script(API, usagePath, { status: 503 });
    const throttled = vi.fn();
    const c = client({ observer: { onThrottled: throttled } });
    const call = c.describeL7UsageData(usageRequest);
    await vi.advanceTimersByTimeAsync(100);
    await call;
    expect(usage).toEqual([0, 1]);
    expect(throttled).not.toHaveBeenCalled();
  });

  it('a 429 that outlasts the attempts fails with the wait it named', async () => {
    agent.get(API).intercept({ path: usagePath, method: 'POST' }).reply(429, { code: 429, msg: 'busy' }, { headers: { 'retry-after': '1' } }).times(3);
    const c = client();
    const call = c.describeL7UsageData(usageRequest).catch((e: unknown) => e);
    // With no budget the first 429 sets one of 0.5/s (half the one request sent), the second 0.25/s: the third attempt goes at 6 s.
    await vi.advanceTimersByTimeAsync(7000);
    const err = await call;
    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).retryAfterMs).toBe(1000);
  });

  it('an abort while a request waits out a pause ends it without sending anything', async () => {
    const usage = script(API, usagePath, { status: 429, headers: { 'retry-after': '60' } });
    const c = client({ retry: { attempts: 1 } });
    await c.describeL7UsageData(usageRequest).catch(() => undefined);
    const stop = new AbortController();
    const waiting = c.describeL7UsageData(usageRequest, { signal: stop.signal }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1000);
    stop.abort();
    expect(await waiting).toMatchObject({ code: 'EDGE_ABORTED' });
    expect(usage).toEqual([0]);
  });
});
