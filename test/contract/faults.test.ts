// Client ↔ simulator contract under injected faults (src/simulator/faults.ts):
// how each failure is typed, what is retried (reads, `attempts` times) and
// what is not (writes, 401, 403), that a failed write leaves the world as it
// was, the order operations' rate limit, and the concurrency cap.
//
// Timeouts use a client with a short configured timeoutMs; nothing sleeps.
import { describe, expect, it } from 'vitest';
import {
  AuthError, BadResponseError, HttpError, PermissionError, RateLimitedError, TimeoutError, isApiError,
  type ClientObserver, type EdgeClient, type OperationName, type AnswerOf,
} from '../../src/api/index.js';
import type { FaultRule } from '../../src/simulator/faults.js';
import { RETRY, T0, errorFields, rejection, useContract } from './harness.js';
import { validRequests, type ValidRequests } from './requests.js';

const ctx = useContract();

function send<K extends OperationName>(client: EdgeClient, op: K, requests: ValidRequests): Promise<AnswerOf<K>> {
  return client.call(op, requests[op]);
}

/** A client that records its retries and outcomes. */
function observed(extra: Parameters<typeof ctx.clientWith>[0] = {}) {
  const retries: number[] = [];
  const outcomes: string[] = [];
  const observer: ClientObserver = {
    onRetry: (e) => retries.push(e.attempt),
    onResponse: (e) => outcomes.push(e.outcome),
  };
  return { client: ctx.clientWith({ ...extra, observer }), retries, outcomes };
}

function inject(rule: FaultRule): void {
  ctx.sim.faults.set([rule]);
}

const READS = ['getPackages', 'describeLogV2', 'describeL7DataV2', 'getPackageDetails', 'listDomains'] as const;
const WRITES = ['batchUpdateDomainCertInfo', 'insertRule', 'updateRule', 'pushUrlsCache'] as const;

/** The world as data, to prove a write changed nothing (or something). */
const snapshot = (): string => JSON.stringify(ctx.sim.world);

describe('5xx', () => {
  it.each(READS)('%s: retries through two 503s and succeeds, with exactly 3 requests served', async (op) => {
    inject({ status5xx: 503, count: 2, operations: [op] });
    const { client, retries } = observed();
    await expect(send(client, op, validRequests(ctx.sim.world))).resolves.toMatchObject({ code: 200 });
    expect(ctx.sim.requestCounts()).toEqual({ [op]: 3 });
    expect(retries).toEqual([1, 2]);
  });

  it.each([500, 502, 503, 504])('a read failing %i on every attempt throws HttpError after `attempts` requests', async (status) => {
    inject({ status5xx: status, operations: ['listDomains'] });
    const err = await rejection(send(ctx.client, 'listDomains', validRequests(ctx.sim.world)));
    expect(err).toBeInstanceOf(HttpError);
    if (!(err instanceof HttpError)) return;
    expect(errorFields(err)).toEqual({ name: 'HttpError', code: 'EDGE_HTTP', operation: 'listDomains', status });
    expect(err.retryable).toBe(true);
    expect(ctx.sim.requestCounts()).toEqual({ listDomains: RETRY.attempts });
  });

  it.each(WRITES)('%s: one 503 fails the write with ONE request served and the world unchanged', async (op) => {
    const requests = validRequests(ctx.sim.world);
    const before = snapshot();
    inject({ status5xx: 503, count: 1, operations: [op] });
    const err = await rejection(send(ctx.client, op, requests));
    expect(err).toBeInstanceOf(HttpError);
    expect(err).toMatchObject({ status: 503, operation: op });
    expect(ctx.sim.requestCounts()).toEqual({ [op]: 1 });
    expect(snapshot()).toBe(before);
    // Control: once the fault is used up the same write goes through and does change the world.
    await expect(send(ctx.client, op, requests)).resolves.toMatchObject({ code: 200 });
    expect(snapshot()).not.toBe(before);
  });
});

describe('hang (no answer)', () => {
  const TIMEOUT = 150;

  it('a read times out after timeoutMs on each of `attempts` tries; once the fault is used up the next call succeeds', async () => {
    inject({ hang: true, count: RETRY.attempts, operations: ['listDomains'] });
    const { client, outcomes } = observed({ timeoutMs: TIMEOUT });
    const started = performance.now();
    const err = await rejection(send(client, 'listDomains', validRequests(ctx.sim.world)));
    const elapsed = performance.now() - started;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ code: 'EDGE_TIMEOUT', operation: 'listDomains' });
    expect(outcomes).toEqual(Array(RETRY.attempts).fill('EDGE_TIMEOUT'));
    expect(ctx.sim.requestCounts()).toEqual({ listDomains: RETRY.attempts });
    // Each attempt waited out the configured timeout (a little slack for timer granularity).
    expect(elapsed).toBeGreaterThanOrEqual(RETRY.attempts * TIMEOUT - 10);

    const next = await send(client, 'listDomains', validRequests(ctx.sim.world));
    expect(next.total).toBe(ctx.sim.world.domains.length);
    expect(ctx.sim.requestCounts()).toEqual({ listDomains: RETRY.attempts + 1 });
  });

  it.each(['insertRule', 'pushUrlsCache'] as const)('%s: a hanging write times out after ONE request', async (op) => {
    inject({ hang: true, operations: [op] });
    const before = snapshot();
    const err = await rejection(send(ctx.clientWith({ timeoutMs: TIMEOUT }), op, validRequests(ctx.sim.world)));
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ code: 'EDGE_TIMEOUT', operation: op });
    expect(ctx.sim.requestCounts()).toEqual({ [op]: 1 });
    // The simulator never ran the handler; a real upstream might have.
    expect(snapshot()).toBe(before);
  });
});

describe('broken bodies', () => {
  it('malformedJson on a read: BadResponseError after `attempts` requests', async () => {
    inject({ malformedJson: true, operations: ['listDomains'] });
    const err = await rejection(send(ctx.client, 'listDomains', validRequests(ctx.sim.world)));
    expect(err).toBeInstanceOf(BadResponseError);
    expect(err).toMatchObject({ code: 'EDGE_BAD_RESPONSE', operation: 'listDomains', status: 200 });
    expect(ctx.sim.requestCounts()).toEqual({ listDomains: RETRY.attempts });
  });

  it('malformedJson once on a read: retried, then succeeds', async () => {
    inject({ malformedJson: true, count: 1, operations: ['describeL7DataV2'] });
    await expect(send(ctx.client, 'describeL7DataV2', validRequests(ctx.sim.world))).resolves.toMatchObject({ code: 200 });
    expect(ctx.sim.requestCounts()).toEqual({ describeL7DataV2: 2 });
  });

  it('malformedJson on a write: BadResponseError, one request, although the write happened', async () => {
    inject({ malformedJson: true, operations: ['pushUrlsCache'] });
    const before = ctx.sim.world.cacheRecords.length;
    const err = await rejection(send(ctx.client, 'pushUrlsCache', validRequests(ctx.sim.world)));
    expect(err).toBeInstanceOf(BadResponseError);
    expect(ctx.sim.requestCounts()).toEqual({ pushUrlsCache: 1 });
    // Why writes are never retried: the answer was lost, not the write.
    expect(ctx.sim.world.cacheRecords.length).toBe(before + 1);
  });

  it.each([
    ['listDomains', RETRY.attempts],
    ['getPackageDetails', RETRY.attempts],
    ['pushUrlsCache', 1],
  ] as const)('truncatedBody on %s: a typed NetworkError or BadResponseError after %i request(s)', async (op, requests) => {
    inject({ truncatedBody: true, operations: [op] });
    const err = await rejection(send(ctx.client, op, validRequests(ctx.sim.world)));
    expect(isApiError(err)).toBe(true);
    expect(['EDGE_NETWORK', 'EDGE_BAD_RESPONSE']).toContain(isApiError(err) ? err.code : String(err));
    expect(err).toMatchObject({ operation: op });
    expect(ctx.sim.requestCounts()).toEqual({ [op]: requests });
  });
});

describe('dataNull (data, or rows, replaced by null)', () => {
  it('listDomains: rows become [], total is kept, nothing is thrown or retried', async () => {
    inject({ dataNull: true, operations: ['listDomains'] });
    const res = await send(ctx.client, 'listDomains', validRequests(ctx.sim.world));
    expect(res.rows).toEqual([]);
    expect(res.total).toBe(ctx.sim.world.domains.length);
    expect(ctx.sim.requestCounts()).toEqual({ listDomains: 1 });
  });

  it.each(['getPackages', 'describeLogV2', 'describeL7UsageData', 'describeL7DataV2', 'describeL7MostData', 'describeL7CCAttack'] as const)(
    '%s: data becomes []', async (op) => {
      inject({ dataNull: true, operations: [op] });
      const res = await send(ctx.client, op, validRequests(ctx.sim.world));
      expect(res.data).toEqual([]);
      expect(ctx.sim.requestCounts()).toEqual({ [op]: 1 });
    },
  );

  // getPackageDetails' data is the whole answer. The schema admits null (the
  // document shows no empty case), so the call succeeds and hands the caller
  // `data: null` — typed `| null | undefined`, so the caller must check it.
  it('getPackageDetails: resolves with data null; the caller sees no details rather than an error', async () => {
    inject({ dataNull: true, operations: ['getPackageDetails'] });
    const res = await send(ctx.client, 'getPackageDetails', validRequests(ctx.sim.world));
    expect(res.code).toBe(200);
    expect(res.data).toBeNull();
  });

  // describeL7Data's data may be the array form or the object form; null is neither and parses as absent.
  it('describeL7Data: data is null, not an array', async () => {
    inject({ dataNull: true, operations: ['describeL7Data'] });
    const res = await send(ctx.client, 'describeL7Data', validRequests(ctx.sim.world));
    expect(res.data).toBeNull();
  });
});

describe('401 and 403 mid-run', () => {
  it('one 401: AuthError at once, not retried; the next call succeeds', async () => {
    inject({ unauthorized: true, count: 1, operations: ['describeL7DataV2'] });
    const { client, retries } = observed();
    const err = await rejection(send(client, 'describeL7DataV2', validRequests(ctx.sim.world)));
    expect(err).toBeInstanceOf(AuthError);
    expect(err).toMatchObject({ code: 'EDGE_AUTH', status: 401, operation: 'describeL7DataV2' });
    expect(retries).toEqual([]);
    expect(ctx.sim.requestCounts()).toEqual({ describeL7DataV2: 1 });
    await expect(send(client, 'describeL7DataV2', validRequests(ctx.sim.world))).resolves.toMatchObject({ code: 200 });
  });

  it('403: PermissionError, not retried', async () => {
    inject({ forbidden: true, operations: ['listDomains'] });
    const err = await rejection(send(ctx.client, 'listDomains', validRequests(ctx.sim.world)));
    expect(err).toBeInstanceOf(PermissionError);
    expect(err).toMatchObject({ code: 'EDGE_PERMISSION', status: 403, operation: 'listDomains' });
    expect(ctx.sim.requestCounts()).toEqual({ listDomains: 1 });
  });
});

describe('concurrency cap', () => {
  // The simulator counts a request when it arrives. A client slot is freed
  // only after the client has seen the answer, so at the moment the client
  // observes answer k, (arrivals so far) - (answers seen before k) is the
  // number of requests the simulator held at once just before answering k;
  // the peak of that over all k is the peak the simulator ever saw.
  it('with concurrency 2 and a 40 ms latency, the simulator never holds more than 2 requests', async () => {
    inject({ latencyMs: 40, operations: ['listDomains'] });
    let answered = 0;
    let peak = 0;
    const client = ctx.clientWith({
      concurrency: 2,
      observer: {
        onResponse: () => {
          peak = Math.max(peak, (ctx.sim.requestCounts().listDomains ?? 0) - answered);
          answered += 1;
        },
      },
    });
    const started = performance.now();
    await Promise.all(Array.from({ length: 6 }, () => send(client, 'listDomains', validRequests(ctx.sim.world))));
    expect(ctx.sim.requestCounts()).toEqual({ listDomains: 6 });
    expect(peak).toBe(2);
    // Three rounds of two: the cap really serialised them.
    expect(performance.now() - started).toBeGreaterThanOrEqual(3 * 40 - 5);
  });
});

describe('order rate limit (10 requests per second per user)', () => {
  // The simulator's limiter runs on the SIMULATOR clock. On the pinned clock
  // every request falls in the same simulated instant, so the limit can be
  // shown deterministically; but a well-behaved client spacing its calls
  // over real seconds would still be refused there, as simulated time never
  // moves. Showing that the client keeps to the limit therefore needs a
  // simulator whose clock runs at real speed (speed 1, so a simulated
  // second is a wall second: a faster clock would let a too-fast client pass).
  const live = useContract({ sim: { clock: { mode: 'real', start: T0 } } });

  it('the simulator enforces it: a client allowing 1000/s, without retries, gets RateLimitedError past the 10th call', async () => {
    const client = ctx.clientWith({ orderRateLimit: 1000, retry: { attempts: 1 } });
    const results = await Promise.allSettled(Array.from({ length: 25 }, () => client.describeHostAcceleratePackOrder({ pageNum: 1, pageSize: 5 })));
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    expect(refused).toHaveLength(15);
    for (const err of refused) {
      expect(err).toBeInstanceOf(RateLimitedError);
      expect(err).toMatchObject({ code: 'EDGE_RATE_LIMITED', status: 429, operation: 'describeHostAcceleratePackOrder' });
    }
    expect(ctx.sim.requestCounts()).toEqual({ describeHostAcceleratePackOrder: 25 });
  });

  it('the client keeps to it: 25 concurrent calls with the default limit all succeed, 25 served, no 429', async () => {
    const outcomes: string[] = [];
    const client = live.clientWith({ observer: { onResponse: (e) => outcomes.push(e.outcome) } });
    const rows = await Promise.all(Array.from({ length: 25 }, () => client.describeHostAcceleratePackOrder({ pageNum: 1, pageSize: 5 })));
    expect(rows).toHaveLength(25);
    expect(outcomes).toEqual(Array(25).fill('success'));
    // A 429 would have been retried (it is a read) and counted twice.
    expect(live.sim.requestCounts()).toEqual({ describeHostAcceleratePackOrder: 25 });
  });
});
