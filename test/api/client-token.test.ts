// A rotated token: a request answered 401 asks refreshToken once, and is sent
// once more only when that gives a different token; 401s arriving together
// share one refresh; the observer sees the 401 and the replay as two requests.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MockAgent } from 'undici';
import { EdgeClient, type ClientObserver, type ClientOptions } from '../../src/api/client.js';
import { AuthError } from '../../src/api/errors.js';
import { OK, usageRequest } from './requests.js';
import { ArgumentError } from '../../src/shared/errors.js';

const API = 'http://api.test';
const OLD = 'rotated-old-token-1111';
const NEW = 'rotated-new-token-2222';
const usagePath = '/prod-api/cdn/layer7/statistic/describeL7UsageData';
const pushPath = '/prod-api/acdn/edge/content/pushUrlsCache';
const UNAUTHORIZED = { code: 401, msg: '认证失败，无法访问系统资源' };

let agent: MockAgent;
/** The Authorization header of every request the upstream saw, in order. */
let seen: string[];
beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  seen = [];
});
afterEach(async () => {
  await agent.close();
});

/** An upstream at `path` that accepts only `accepted` (read per request, so a test can rotate it). */
function upstream(path: string, accepted: () => string): void {
  agent.get(API).intercept({ path, method: 'POST' }).reply((opts) => {
    const auth = String((opts.headers as Record<string, string>)['authorization']);
    seen.push(auth);
    return auth === `Bearer ${accepted()}` || auth === accepted() ? { statusCode: 200, data: OK } : { statusCode: 401, data: UNAUTHORIZED };
  }).persist();
}

function client(extra: Partial<ClientOptions> = {}): EdgeClient {
  return new EdgeClient({ apiUrl: API, token: OLD, dispatcher: agent, retry: { attempts: 3, minDelayMs: 1, maxDelayMs: 2 }, ...extra });
}

/** A refresh that counts its calls and gives `next()`. */
function refresher(next: () => string | undefined | Promise<string | undefined>): { calls: number; refreshToken: () => Promise<string | undefined> } {
  const r = {
    calls: 0,
    refreshToken: async () => {
      r.calls++;
      return next();
    },
  };
  return r;
}

function recorder(): { events: Array<{ outcome: string; status?: number }>; retries: number; observer: ClientObserver } {
  const r = {
    events: [] as Array<{ outcome: string; status?: number }>,
    retries: 0,
    observer: {
      onResponse: (e) => r.events.push(e.status === undefined ? { outcome: e.outcome } : { outcome: e.outcome, status: e.status }),
      onRetry: () => void r.retries++,
    } satisfies ClientObserver,
  };
  return r;
}

describe('a token rotated upstream', () => {
  it('replays a request answered 401 once with the refreshed token, and keeps that token for later requests', async () => {
    upstream(usagePath, () => NEW);
    const r = refresher(() => NEW);
    const rec = recorder();
    const c = client({ refreshToken: r.refreshToken, observer: rec.observer });
    await expect(c.describeL7UsageData(usageRequest)).resolves.toMatchObject({ code: 200 });
    expect(seen).toEqual([`Bearer ${OLD}`, `Bearer ${NEW}`]);
    expect(r.calls).toBe(1);
    // The 401 is reported as the auth failure it was, the replay as a request of its own; neither is a retry.
    expect(rec.events).toEqual([{ outcome: 'EDGE_AUTH', status: 401 }, { outcome: 'success', status: 200 }]);
    expect(rec.retries).toBe(0);

    await c.describeL7UsageData(usageRequest);
    expect(seen).toEqual([`Bearer ${OLD}`, `Bearer ${NEW}`, `Bearer ${NEW}`]);
    expect(r.calls).toBe(1);
  });

  it('lets the AuthError stand when the refresh gives the same token: one request, one refresh, no retry', async () => {
    upstream(usagePath, () => NEW);
    const r = refresher(() => OLD);
    const rec = recorder();
    const err = await client({ refreshToken: r.refreshToken, observer: rec.observer }).describeL7UsageData(usageRequest).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect((err as AuthError).code).toBe('EDGE_AUTH');
    expect(seen).toEqual([`Bearer ${OLD}`]);
    expect(r.calls).toBe(1);
    expect(rec.events).toEqual([{ outcome: 'EDGE_AUTH', status: 401 }]);
  });

  it('lets the AuthError stand when the refresh gives nothing or fails', async () => {
    upstream(usagePath, () => NEW);
    for (const next of [() => undefined, () => '', () => Promise.reject(new Error('cannot read the token file'))]) {
      seen = [];
      const r = refresher(next);
      const err = await client({ refreshToken: r.refreshToken }).describeL7UsageData(usageRequest).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AuthError);
      expect(seen).toEqual([`Bearer ${OLD}`]);
      expect(r.calls).toBe(1);
    }
  });

  it('replays only once: a refreshed token that is refused too ends in the AuthError', async () => {
    upstream(usagePath, () => 'a-third-token-3333');
    const r = refresher(() => NEW);
    const rec = recorder();
    const err = await client({ refreshToken: r.refreshToken, observer: rec.observer }).describeL7UsageData(usageRequest).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(seen).toEqual([`Bearer ${OLD}`, `Bearer ${NEW}`]);
    expect(r.calls).toBe(1);
    expect(rec.events).toEqual([{ outcome: 'EDGE_AUTH', status: 401 }, { outcome: 'EDGE_AUTH', status: 401 }]);
  });

  it('without refreshToken a 401 is an AuthError after one request, as before', async () => {
    upstream(usagePath, () => NEW);
    const err = await client().describeL7UsageData(usageRequest).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(seen).toEqual([`Bearer ${OLD}`]);
  });

  it('shares one refresh among concurrent requests answered 401, and each is replayed with the new token', async () => {
    upstream(usagePath, () => NEW);
    const r = refresher(() => NEW);
    const c = client({ refreshToken: r.refreshToken });
    const results = await Promise.all([1, 2, 3, 4].map(() => c.describeL7UsageData(usageRequest)));
    expect(results.map((x) => x.code)).toEqual([200, 200, 200, 200]);
    expect(r.calls).toBe(1);
    expect(seen.filter((a) => a === `Bearer ${OLD}`)).toHaveLength(4);
    expect(seen.filter((a) => a === `Bearer ${NEW}`)).toHaveLength(4);
  });

  it('shares one refresh in flight even when it gives the same token: every request fails once, the file is read once', async () => {
    upstream(usagePath, () => NEW);
    let release: (token: string) => void = () => undefined;
    const gate = new Promise<string>((resolve) => (release = resolve));
    const r = refresher(() => gate);
    const rec = recorder();
    const c = client({ refreshToken: r.refreshToken, observer: rec.observer });
    const pending = Promise.all([1, 2, 3].map(() => c.describeL7UsageData(usageRequest).catch((e: unknown) => e)));
    // Every 401 has been answered and reported before the refresh completes.
    await expect.poll(() => rec.events.length, { timeout: 5_000 }).toBe(3);
    release(OLD);
    const errors = await pending;
    expect(errors.every((e) => e instanceof AuthError)).toBe(true);
    expect(r.calls).toBe(1);
    expect(seen).toEqual([`Bearer ${OLD}`, `Bearer ${OLD}`, `Bearer ${OLD}`]);
  });

  it('replays a write answered 401 too: the upstream refused it before doing anything', async () => {
    upstream(pushPath, () => NEW);
    const r = refresher(() => NEW);
    await expect(client({ refreshToken: r.refreshToken }).pushUrlsCache({ urls: ['https://a.example/x'], area: 'global' })).resolves.toMatchObject({ code: 200 });
    expect(seen).toEqual([`Bearer ${OLD}`, `Bearer ${NEW}`]);
  });

  it('uses the refreshed token in the raw scheme as well', async () => {
    upstream(usagePath, () => NEW);
    const r = refresher(() => NEW);
    await client({ authScheme: 'raw', refreshToken: r.refreshToken }).describeL7UsageData(usageRequest);
    expect(seen).toEqual([OLD, NEW]);
  });
});

describe('setToken', () => {
  it('sends the new token from the next request on, with no 401 on the way', async () => {
    upstream(usagePath, () => NEW);
    const r = refresher(() => undefined);
    const c = client({ refreshToken: r.refreshToken });
    c.setToken(NEW);
    await c.describeL7UsageData(usageRequest);
    expect(seen).toEqual([`Bearer ${NEW}`]);
    expect(r.calls).toBe(0);
  });

  it('refuses an empty token', () => {
    expect(() => client().setToken('')).toThrow(ArgumentError);
  });
});
