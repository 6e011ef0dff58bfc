// What the engine makes of each run: the success rule, error logging, the
// metric filter, the observer.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { AuthError, HttpError, NetworkError, PermissionError } from '../../src/api/index.js';
import type { CollectOutput } from '../../src/collectors/collector.js';
import {
  COUNTER, GAUGE, MIN, T0, every, fakeCollector, family, idleClient, output, rig, trackRigs,
} from './fakes.js';

const client = idleClient();
afterAll(() => client.close());

const track = trackRigs();

const upstreamDown = () => new HttpError('describeL7DataV2: HTTP 503', { operation: 'describeL7DataV2', status: 503 });
const gauge = new Map([[GAUGE, [{ name: GAUGE, labels: { collector: 'x' }, value: 4 }]]]);

describe('Engine: outcome of a cycle', () => {
  it.each<[string, () => Promise<CollectOutput>, object]>([
    ['clean output', async () => output({ gauges: gauge, newestBucketEndMs: T0 - MIN }), { ok: true, partialErrors: 0, newestBucketEndMs: T0 - MIN }],
    ['nothing new, no error', async () => output(), { ok: true, partialErrors: 0 }],
    ['partial failure with output', async () => output({ gauges: gauge, errors: [upstreamDown()] }), { ok: true, partialErrors: 1 }],
    [
      'partial failures and no output',
      async () => output({ errors: [upstreamDown(), upstreamDown()] }),
      { ok: false, partialErrors: 2, error: { code: 'EDGE_HTTP', operation: 'describeL7DataV2', status: 503 } },
    ],
    ['collect throws', () => Promise.reject(upstreamDown()), { ok: false, partialErrors: 0, error: { code: 'EDGE_HTTP', status: 503 } }],
  ])('%s', async (_name, behave, expected) => {
    const c = fakeCollector('x', behave, [family(COUNTER), family(GAUGE, 'gauge')]);
    const r = track(rig({ client, collectors: [{ collector: c, schedule: every(MIN) }] }));
    const [report] = await r.engine.runOnce();
    expect(report).toMatchObject({ collector: 'x', now: T0, ...expected });
    expect(r.observer.reports).toEqual([report]);
    expect(r.engine.status()[0]?.lastOutcome).toBe(report?.ok ? 'success' : 'error');
    // Published only when ok; a failed cycle leaves the last values in place.
    expect(r.sink.lastCounters('x') !== undefined).toBe(report?.ok);
  });

  it('publishes absolute counters and the gauge families of the cycle, after saving', async () => {
    const c = fakeCollector('x', async (_ctx, call) =>
      output({ increments: [{ name: COUNTER, labels: { collector: 'x' }, value: call * 10 }], gauges: call === 1 ? gauge : new Map() }),
    );
    const r = track(rig({ client, collectors: [{ collector: c, schedule: every(MIN) }] }));
    await r.engine.start();
    await vi.advanceTimersByTimeAsync(2 * MIN);
    expect(r.events.map((e) => e.kind)).toEqual(['save', 'publish', 'save', 'publish', 'save', 'publish']);
    const counters = r.events.flatMap((e) => (e.kind === 'publish' ? [e.counters[0]?.value] : []));
    expect(counters).toEqual([10, 30, 60]);
    const gauges = r.events.flatMap((e) => (e.kind === 'publish' ? [e.gauges.size] : []));
    expect(gauges).toEqual([1, 0, 0]);
  });
});

describe('Engine: failures', () => {
  it('keeps the other collectors and the schedule going when one fails', async () => {
    const bad = fakeCollector('bad', () => Promise.reject(upstreamDown()));
    const good = fakeCollector('good');
    const r = track(rig({ client, collectors: [{ collector: bad, schedule: every(MIN) }, { collector: good, schedule: every(MIN) }] }));
    await r.engine.start();
    await vi.advanceTimersByTimeAsync(2 * MIN);
    expect([bad.calls.length, good.calls.length]).toEqual([3, 3]);
    expect(r.observer.of('bad').map((x) => x.ok)).toEqual([false, false, false]);
    expect(r.observer.of('good').map((x) => x.ok)).toEqual([true, true, true]);
    expect(r.engine.status()).toMatchObject([
      { name: 'bad', lastOutcome: 'error', lastError: { code: 'EDGE_HTTP', message: 'describeL7DataV2: HTTP 503' } },
      { name: 'good', lastOutcome: 'success' },
    ]);
    expect(r.engine.status()[0]?.lastSuccessAt).toBeUndefined();
  });

  it.each([
    ['401', new AuthError('listDomains: HTTP 401', { operation: 'listDomains', status: 401 })],
    ['403', new PermissionError('listDomains: HTTP 403', { operation: 'listDomains', status: 403 })],
  ])('logs a %s as a token problem, with structured fields and no message text', async (_name, error) => {
    const c = fakeCollector('x', () => Promise.reject(error));
    const r = track(rig({ client, collectors: [{ collector: c, schedule: every(MIN) }] }));
    await r.engine.runOnce();
    const entry = r.logger.entries.find((e) => e.level === 'warn');
    expect(entry?.msg).toBe('collector run failed: token may be invalid / lacks permission');
    expect(entry?.bindings).toEqual({ collector: 'x' });
    expect(entry?.obj).toEqual({ code: error.code, operation: 'listDomains', status: error.status });
  });

  it('a run whose every request failed (an AggregateError) reports and logs the first failure\'s code', async () => {
    const denied = () => new AuthError('describeL7DataV2: HTTP 401', { operation: 'describeL7DataV2', status: 401 });
    const c = fakeCollector('x', () => Promise.reject(new AggregateError([denied(), upstreamDown()], 'x: every request failed')));
    const r = track(rig({ client, collectors: [{ collector: c, schedule: every(MIN) }] }));
    const [report] = await r.engine.runOnce();
    expect(report?.error).toEqual({
      code: 'EDGE_AUTH', operation: 'describeL7DataV2', status: 401,
      message: 'x: every request failed (2 failures, the first: describeL7DataV2: HTTP 401)',
    });
    expect(r.engine.status()[0]?.lastError?.code).toBe('EDGE_AUTH');
    const entry = r.logger.entries.find((e) => e.level === 'warn');
    expect(entry?.msg).toBe('collector run failed: token may be invalid / lacks permission');
    expect(entry?.obj).toEqual({ code: 'EDGE_AUTH', operation: 'describeL7DataV2', status: 401, failures: 2 });
  });

  it('keeps a failed connection\'s address and hint for the status page\'s row', async () => {
    const refused = new NetworkError('cannot reach 127.0.0.1:9 (ECONNREFUSED): check upstream.api_url', {
      operation: 'listDomains', address: '127.0.0.1:9', reason: 'ECONNREFUSED', hint: 'check upstream.api_url',
    });
    const c = fakeCollector('x', () => Promise.reject(refused));
    const r = track(rig({ client, collectors: [{ collector: c, schedule: every(MIN) }] }));
    await r.engine.runOnce();
    expect(r.engine.status()[0]?.lastError).toEqual({
      code: 'EDGE_NETWORK', message: 'cannot reach 127.0.0.1:9 (ECONNREFUSED): check upstream.api_url', address: '127.0.0.1:9', hint: 'check upstream.api_url',
    });
  });

  it('logs partial errors one by one and still counts the cycle', async () => {
    const c = fakeCollector('x', async () => output({ gauges: gauge, errors: [upstreamDown()] }), [family(GAUGE, 'gauge')]);
    const r = track(rig({ client, collectors: [{ collector: c, schedule: every(MIN) }] }));
    await r.engine.runOnce();
    expect(r.logger.entries.filter((e) => e.level === 'warn')).toMatchObject([
      { msg: 'request (partial data) failed', obj: { code: 'EDGE_HTTP', operation: 'describeL7DataV2', status: 503 } },
    ]);
  });

  it('survives an observer that throws', async () => {
    const c = fakeCollector('x');
    const r = track(rig({ client, collectors: [{ collector: c, schedule: every(MIN) }] }));
    r.observer.onRun = () => {
      throw new Error('observer bug');
    };
    expect(await r.engine.runOnce()).toMatchObject([{ ok: true }]);
    expect(r.logger.entries.some((e) => e.level === 'error' && e.msg === 'engine observer failed')).toBe(true);
  });
});

describe('Engine: metric filter', () => {
  it('never runs a collector whose families are all denied', async () => {
    const topn = fakeCollector('topn', undefined, [family('edge_topn_requests', 'gauge'), family('edge_topn_traffic_bytes', 'gauge')]);
    const access = fakeCollector('access');
    const r = track(rig({
      client,
      deny: ['edge_topn_*'],
      collectors: [{ collector: topn, schedule: every(MIN) }, { collector: access, schedule: every(MIN) }],
    }));
    await r.engine.start();
    await vi.advanceTimersByTimeAsync(5 * MIN);
    expect(topn.calls).toHaveLength(0);
    expect(access.calls.length).toBeGreaterThan(0);
    expect(r.engine.status().map((s) => s.name)).toEqual(['access']);
    expect((await r.engine.runOnce()).map((x) => x.collector)).toEqual(['access']);
    expect(r.logger.entries.some((e) => e.obj && 'collector' in e.obj && e.obj.collector === 'topn' && e.msg?.includes('denied'))).toBe(true);
  });

  it('tells a partly denied collector which families are off', async () => {
    const c = fakeCollector('x', undefined, [family(COUNTER), family(GAUGE, 'gauge')]);
    const r = track(rig({ client, deny: [GAUGE], collectors: [{ collector: c, schedule: every(MIN) }] }));
    await r.engine.runOnce();
    expect([c.calls[0]?.enabled(COUNTER), c.calls[0]?.enabled(GAUGE)]).toEqual([true, false]);
  });
});
