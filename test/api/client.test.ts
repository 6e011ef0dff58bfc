// Client behaviour against exact, scripted HTTP (undici MockAgent): what is
// sent, how each failure is typed, and what is retried.
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MockAgent } from 'undici';
import { EdgeClient, type ClientOptions } from '../../src/api/client.js';
import {
  AbortedError, AuthError, BadResponseError, BodyTooLargeError, HttpError, NotFoundError, PermissionError,
  TimeoutError, UpstreamError, ValidationError, type ApiError,
} from '../../src/api/errors.js';
import { OK, usageRequest } from './requests.js';

const API = 'http://api.test';
const LOGIN = 'http://login.test';
const TOKEN = 'tok-123456';

let agent: MockAgent;
beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
});
afterEach(async () => {
  await agent.close();
});

function client(extra: Partial<ClientOptions> = {}): EdgeClient {
  return new EdgeClient({
    apiUrl: API, loginUrl: LOGIN, token: TOKEN, dispatcher: agent,
    retry: { attempts: 3, minDelayMs: 1, maxDelayMs: 2 }, ...extra,
  });
}

const usagePath = '/prod-api/cdn/layer7/statistic/describeL7UsageData';

describe('requests', () => {
  it('rejects an invalid request locally, naming the field and the allowed values, and sends nothing', async () => {
    const err = await client().describeL7UsageData({ ...usageRequest, interval: '2m' as '5m' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    const v = err as ValidationError;
    expect(v.issues[0]?.path).toBe('interval');
    expect(v.message).toMatch(/1m.*5m.*1h.*1d/);
    // No interceptor was registered and net connect is disabled: anything sent would have failed differently.
    agent.assertNoPendingInterceptors();
  });

  it('sends the validated body as JSON with the Bearer token', async () => {
    let seen: { body: unknown; auth: unknown } | undefined;
    agent.get(API).intercept({ path: usagePath, method: 'POST' }).reply(200, (opts) => {
      seen = { body: JSON.parse(String(opts.body)), auth: (opts.headers as Record<string, string>)['authorization'] };
      return OK;
    });
    await client().describeL7UsageData(usageRequest);
    expect(seen).toEqual({ body: usageRequest, auth: `Bearer ${TOKEN}` });
  });

  it('sends the raw token with auth_scheme raw, but always Bearer to the WAF log host', async () => {
    const auths: string[] = [];
    const record = (opts: { headers?: unknown }) => {
      auths.push(String((opts.headers as Record<string, string>)['authorization']));
      return OK;
    };
    agent.get(API).intercept({ path: usagePath, method: 'POST' }).reply(200, record);
    agent.get(LOGIN).intercept({ path: '/prod-api/waf/wafv3/log/V2/describeLogV2', method: 'POST' }).reply(200, record);
    const c = client({ authScheme: 'raw' });
    await c.describeL7UsageData(usageRequest);
    await c.describeLogV2({ action: [{ metricName: 'logTread' }], params: usageRequest.params });
    expect(auths).toEqual([TOKEN, `Bearer ${TOKEN}`]);
  });

  it('puts getPackageDetails oid in the path and honours a path override', async () => {
    agent.get(API).intercept({ path: '/custom/pkg%2F1', method: 'GET' }).reply(200, { code: 200, msg: 'ok', data: null });
    const c = client({ paths: { getPackageDetails: '/custom/{oid}' } });
    await expect(c.getPackageDetails({ oid: 'pkg/1' })).resolves.toMatchObject({ code: 200 });
  });
});

describe('errors', () => {
  it.each<[string, number, unknown, new (...a: never[]) => ApiError, string]>([
    ['401', 401, { code: 401, msg: '认证失败' }, AuthError, 'EDGE_AUTH'],
    ['403', 403, { code: 403, msg: '没有权限' }, PermissionError, 'EDGE_PERMISSION'],
    ['404', 404, 'not found', NotFoundError, 'EDGE_NOT_FOUND'],
    ['envelope code', 200, { code: 500, msg: '查询日志失败' }, UpstreamError, 'EDGE_UPSTREAM'],
    ['string envelope code', 200, { code: '601', msg: '附属查询条件的条件类型有误' }, UpstreamError, 'EDGE_UPSTREAM'],
    ['malformed JSON', 200, '{"code":200,', BadResponseError, 'EDGE_BAD_RESPONSE'],
    ['wrong shape', 200, { code: 200, data: 'nope' }, BadResponseError, 'EDGE_BAD_RESPONSE'],
  ])('%s -> typed error', async (_name, status, body, type, code) => {
    agent.get(API).intercept({ path: usagePath, method: 'POST' }).reply(status, body as object).times(3);
    const err = (await client().describeL7UsageData(usageRequest).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(type);
    expect(err.code).toBe(code);
    expect(err.operation).toBe('describeL7UsageData');
    expect(err.status).toBe(status);
    if (typeof body === 'object' && body !== null && 'msg' in body) {
      expect(err.upstreamMsg).toBe((body as { msg: string }).msg);
      expect(err.message).toContain((body as { msg: string }).msg);
    }
  });

  // docs/upstream-notes.md, "Errors and envelopes": a 404 in the upstream's own error format is about
  // the data and shows its message; any other 404 body means the path or base URL is wrong.
  it.each<[string, string | object, RegExp]>([
    ['the envelope with a msg', { code: 404, msg: '套餐不存在' }, /^describeL7UsageData: HTTP 404, upstream code 404: 套餐不存在$/],
    ['Spring Boot\'s default error body', { timestamp: '2026-03-02T04:00:00.000Z', status: 404, error: 'Not Found', path: usagePath }, /path not found \(check upstream\.paths\.describeL7UsageData and upstream\.api_url\)$/],
    ['an HTML page', '<html><body>404 Not Found</body></html>', /path not found \(check upstream\.paths\.describeL7UsageData and upstream\.api_url\)$/],
    ['an empty body', '', /path not found/],
    ['an envelope code without msg', { code: 404 }, /path not found/],
  ])('a 404 with %s', async (_what, body, message) => {
    agent.get(API).intercept({ path: usagePath, method: 'POST' }).reply(404, body);
    const err = (await client().describeL7UsageData(usageRequest).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.message).toMatch(message);
    if (typeof body === 'object' && 'msg' in body) expect(err.message).not.toContain('upstream.paths');
  });

  it('keeps the envelope code on an UpstreamError', async () => {
    agent.get(API).intercept({ path: usagePath, method: 'POST' }).reply(200, { code: '601', msg: 'x' });
    const err = (await client().describeL7UsageData(usageRequest).catch((e: unknown) => e)) as UpstreamError;
    expect(err.upstreamCode).toBe(601);
  });

  it('fails an oversized body without buffering it', async () => {
    agent.get(API).intercept({ path: usagePath, method: 'POST' }).reply(200, JSON.stringify({ ...OK, pad: 'x'.repeat(5000) }));
    const err = await client({ maxBodyBytes: 1000 }).describeL7UsageData(usageRequest).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BodyTooLargeError);
  });
});

describe('retries', () => {
  it('retries a read on 5xx and reports each retry', async () => {
    const pool = agent.get(API);
    pool.intercept({ path: usagePath, method: 'POST' }).reply(503, 'busy').times(2);
    pool.intercept({ path: usagePath, method: 'POST' }).reply(200, OK);
    const retries: number[] = [];
    const c = client({ observer: { onRetry: (e) => retries.push(e.attempt) } });
    await expect(c.describeL7UsageData(usageRequest)).resolves.toMatchObject({ code: 200 });
    expect(retries).toEqual([1, 2]);
  });

  it('gives up after the configured attempts', async () => {
    agent.get(API).intercept({ path: usagePath, method: 'POST' }).reply(502, 'bad').times(3);
    const err = await client().describeL7UsageData(usageRequest).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    agent.assertNoPendingInterceptors();
  });

  it('never retries a write', async () => {
    const path = '/prod-api/acdn/edge/content/pushUrlsCache';
    agent.get(API).intercept({ path, method: 'POST' }).reply(503, 'busy');
    agent.get(API).intercept({ path, method: 'POST' }).reply(200, { code: 200, msg: 'ok' });
    const err = await client().pushUrlsCache({ urls: ['https://a.example/x'], area: 'global' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(agent.pendingInterceptors()).toHaveLength(1);
  });

  it('does not retry a 401', async () => {
    agent.get(API).intercept({ path: usagePath, method: 'POST' }).reply(401, { code: 401, msg: 'no' });
    agent.get(API).intercept({ path: usagePath, method: 'POST' }).reply(200, OK);
    await expect(client().describeL7UsageData(usageRequest)).rejects.toBeInstanceOf(AuthError);
    expect(agent.pendingInterceptors()).toHaveLength(1);
  });

  it('times out a hanging read, per attempt, and retries it', async () => {
    agent.get(API).intercept({ path: usagePath, method: 'POST' }).reply(200, OK).delay(2000).times(2);
    const outcomes: string[] = [];
    const c = client({ timeoutMs: 50, retry: { attempts: 2, minDelayMs: 1, maxDelayMs: 1 }, observer: { onResponse: (e) => outcomes.push(e.outcome) } });
    await expect(c.describeL7UsageData(usageRequest)).rejects.toBeInstanceOf(TimeoutError);
    expect(outcomes).toEqual(['EDGE_TIMEOUT', 'EDGE_TIMEOUT']);
  });

  it('names the address waited on, and the proxy the route gives for it (masked)', async () => {
    agent.get(API).intercept({ path: usagePath, method: 'POST' }).reply(200, OK).delay(2000);
    const proxy = { httpProxy: 'http://user:pr0xy-pw@proxy.test:3128', httpsProxy: '', noProxy: '', source: 'environment' as const };
    const c = client({ timeoutMs: 50, retry: { attempts: 1 }, proxy });
    const err = await c.describeL7UsageData(usageRequest).catch((e: unknown) => e);
    expect((err as TimeoutError).message).toBe('describeL7UsageData: no complete response from api.test:80 via proxy http://[REDACTED]@proxy.test:3128 within 50 ms');
  });
});

describe('limits', () => {
  it('never has more requests in flight than the concurrency cap', async () => {
    let inFlight = 0;
    let peak = 0;
    agent.get(API).intercept({ path: usagePath, method: 'POST' }).reply(200, () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      setTimeout(() => inFlight--, 5);
      return OK;
    }).delay(10).persist();
    const c = client({ concurrency: 2 });
    await Promise.all(Array.from({ length: 8 }, () => c.describeL7UsageData(usageRequest)));
    expect(peak).toBeLessThanOrEqual(2);
    expect(peak).toBeGreaterThan(0);
  });

  it('holds order operations to the configured rate in every sliding second', async () => {
    const at: number[] = [];
    agent.get(API).intercept({ path: '/prod-api/acdn/partner/hostAcceleratePackRest/describeHostAcceleratePackOrder', method: 'POST' })
      .reply(200, () => {
        at.push(performance.now());
        return { code: 200, msg: 'ok', total: 0, rows: [] };
      }).persist();
    let waits = 0;
    const c = client({ orderRateLimit: 5, observer: { onRateLimitWait: () => waits++ } });
    await Promise.all(Array.from({ length: 12 }, () => c.describeHostAcceleratePackOrder({ pageNum: 1, pageSize: 10 })));
    expect(at).toHaveLength(12);
    at.sort((a, b) => a - b);
    for (let i = 5; i < at.length; i++) expect(at[i]! - at[i - 5]!).toBeGreaterThanOrEqual(995);
    expect(waits).toBe(7);
  });
});

describe("the caller's signal", () => {
  /** What Node keeps on a signal for each AbortSignal.any() that followed it. */
  const dependants = (signal: AbortSignal): number => {
    const key = Object.getOwnPropertySymbols(signal).find((s) => s.description === 'kDependantSignals');
    return key === undefined ? 0 : (signal as unknown as Record<symbol, Set<unknown>>)[key]?.size ?? 0;
  };

  it('a long-lived signal (the engine\'s) carries nothing once the requests are done', async () => {
    agent.get(API).intercept({ path: usagePath, method: 'POST' }).reply(200, OK).persist();
    const shutdown = new AbortController();
    const c = client();
    for (let i = 0; i < 50; i++) await c.describeL7UsageData(usageRequest, { signal: shutdown.signal });
    // AbortSignal.any() left one entry per request here on Node 20 (nodejs/node#55351): a leak for the life of the daemon.
    expect({ listeners: getEventListeners(shutdown.signal, 'abort').length, dependants: dependants(shutdown.signal) }).toEqual({ listeners: 0, dependants: 0 });
  });

  it('still aborts a request in flight when it fires', async () => {
    agent.get(API).intercept({ path: usagePath, method: 'POST' }).reply(200, OK).delay(5_000);
    const shutdown = new AbortController();
    const pending = client().describeL7UsageData(usageRequest, { signal: shutdown.signal });
    setTimeout(() => shutdown.abort(), 20);
    await expect(pending).rejects.toBeInstanceOf(AbortedError);
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
  });
});
