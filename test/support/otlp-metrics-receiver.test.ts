// The scripted OTLP metrics receiver the exporter's tests push to, driven here by Node's own fetch: it answers
// from its script in order and then 200, keeps every body as sent, holds a request until released, notices a
// client that leaves a held request, and refuses what is not an OTLP metrics export without using the script.
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { officialMetricsRequestType } from './otlp-metrics-decode.js';
import { startOtlpMetricsReceiver } from './otlp-metrics-receiver.js';

type Receiver = Awaited<ReturnType<typeof startOtlpMetricsReceiver>>;

const RequestType = officialMetricsRequestType();
const PROTO_BODY = new Uint8Array(RequestType.encode(
  RequestType.fromObject({
    resourceMetrics: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'edge-exporter' } }] },
        scopeMetrics: [{ metrics: [{ name: 'edge.requests', sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints: [{ timeUnixNano: '1700000000000000001', asInt: '5' }] } }] }],
      },
    ],
  }),
).finish());
const JSON_BODY = JSON.stringify({
  resourceMetrics: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'edge-exporter' } }] },
      scopeMetrics: [{ metrics: [{ name: 'edge.requests', sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints: [{ timeUnixNano: '1700000000000000001', asInt: '5' }] } }] }],
    },
  ],
});

let receiver: Receiver;

beforeEach(async () => {
  receiver = await startOtlpMetricsReceiver();
});

afterEach(async () => {
  await receiver.close();
});

function post(body: Uint8Array | string, init: { contentType?: string; headers?: Record<string, string>; signal?: AbortSignal; url?: string } = {}): Promise<Response> {
  return fetch(init.url ?? receiver.url, {
    method: 'POST',
    body,
    headers: { 'content-type': init.contentType ?? 'application/x-protobuf', ...init.headers },
    ...(init.signal === undefined ? {} : { signal: init.signal }),
  });
}

const bytes = async (response: Response): Promise<Uint8Array> => new Uint8Array(await response.arrayBuffer());

/** Whether `promise` is still pending after `ms`. */
async function stillPending(promise: Promise<unknown>, ms = 150): Promise<boolean> {
  const later = Symbol('pending');
  return (await Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve(later), ms))])) === later;
}

describe('the scripted OTLP metrics receiver', () => {
  it('answers the next requests from the script in order, Retry-After included, then 200', async () => {
    expect(receiver.url).toBe(`${receiver.origin}/v1/metrics`);
    receiver.script([{ status: 503 }, { status: 429, retryAfter: '2' }, 200]);
    const responses: Response[] = [];
    for (let i = 0; i < 4; i++) responses.push(await post(PROTO_BODY));

    expect(responses.map((r) => r.status)).toEqual([503, 429, 200, 200]);
    expect(responses.map((r) => r.headers.get('retry-after'))).toEqual([null, '2', null, null]);
    expect(responses.map((r) => r.headers.get('content-type'))).toEqual(Array(4).fill('application/x-protobuf'));
    // An empty ExportMetricsServiceResponse in protobuf is no bytes at all.
    for (const response of responses) expect(await bytes(response)).toHaveLength(0);

    const log = receiver.requests();
    expect(log.map((r) => [r.seq, r.status, r.retryAfter])).toEqual([
      [0, 503, undefined],
      [1, 429, '2'],
      [2, 200, undefined],
      [3, 200, undefined],
    ]);
    for (const [i, request] of log.entries()) {
      expect(request.answeredAt).toBeGreaterThanOrEqual(request.receivedAt);
      if (i > 0) expect(request.receivedAt).toBeGreaterThanOrEqual(log[i - 1]?.answeredAt ?? Infinity);
    }
    expect(receiver.delivered().map((r) => r.seq)).toEqual([2, 3]);
  });

  it('keeps every body as sent and uncompressed, in arrival order, whatever it answered', async () => {
    receiver.script([503]);
    expect((await post(PROTO_BODY)).status).toBe(503);
    expect((await post(PROTO_BODY, { headers: { 'x-attempt': '2' } })).status).toBe(200);
    const gzipped = gzipSync(JSON_BODY);
    const json = await post(gzipped, { contentType: 'application/json; charset=utf-8', headers: { 'content-encoding': 'gzip' } });
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toBe('application/json');
    expect(await json.text()).toBe('{}');

    const [first, second, third] = receiver.requests();
    // The body answered 503 and the one sent again are the same bytes, and the request's.
    expect(first?.body).toEqual(PROTO_BODY);
    expect(second?.body).toEqual(first?.body);
    expect(second?.headers['x-attempt']).toBe('2');
    expect([first?.encoding, first?.contentType, first?.contentEncoding]).toEqual(['protobuf', 'application/x-protobuf', '']);
    expect([third?.encoding, third?.contentType, third?.contentEncoding]).toEqual(['json', 'application/json; charset=utf-8', 'gzip']);
    expect(third?.rawBody).toEqual(new Uint8Array(gzipped));
    expect(Buffer.from(third?.body ?? []).toString('utf8')).toBe(JSON_BODY);

    // What a collector would have taken: the two 200s, which decode (protoc, and JSON by hand) to one request.
    expect(receiver.delivered().map((r) => r.seq)).toEqual([1, 2]);
    const [fromProtobuf, fromJson] = await receiver.decodeDelivered();
    expect(fromProtobuf?.resources[0]?.scopes[0]?.metrics[0]).toMatchObject({ name: 'edge.requests', kind: 'sum', points: [{ timeUnixNano: 1_700_000_000_000_000_001n, value: 5 }] });
    expect(fromJson).toEqual(fromProtobuf);
  });

  it('holds the next request unanswered until released, without using the script', async () => {
    receiver.script([503]);
    const held = receiver.holdNext();
    const response = post(PROTO_BODY);
    const arrived = await held.arrived;
    expect(arrived.body).toEqual(PROTO_BODY);
    expect(arrived.held).toBe(true);
    expect(await stillPending(response)).toBe(true);
    expect(receiver.requests()[0]?.status).toBeUndefined();

    held.release({ status: 429, retryAfter: 3 });
    const answered = await response;
    expect([answered.status, answered.headers.get('retry-after')]).toEqual([429, '3']);
    expect(receiver.requests()[0]).toMatchObject({ status: 429, retryAfter: '3', disconnected: false });
    expect(() => held.release(200)).toThrow(/already released/);
    // The script still has its 503 for the next request.
    expect((await post(PROTO_BODY)).status).toBe(503);
  });

  it('answers a request released before it arrived as soon as it arrives', async () => {
    const first = receiver.holdNext();
    const second = receiver.holdNext();
    first.release(); // 200 by default
    second.release(503);
    expect((await post(PROTO_BODY)).status).toBe(200);
    expect((await post(PROTO_BODY)).status).toBe(503);
    expect((await first.arrived).seq).toBe(0);
    expect((await second.arrived).seq).toBe(1);
  });

  it('notices a client that leaves a held request, which then counts as not delivered', async () => {
    const held = receiver.holdNext();
    const abort = new AbortController();
    const response = post(PROTO_BODY, { signal: abort.signal });
    await held.arrived;
    abort.abort();
    await expect(response).rejects.toThrow();
    await held.disconnected;
    expect(receiver.requests()[0]?.disconnected).toBe(true);
    held.release(200);
    expect(receiver.requests()[0]?.status).toBe(200);
    expect(receiver.delivered()).toEqual([]);
  });

  it('refuses what is not an OTLP metrics export itself, leaving the script for the next export', async () => {
    receiver.script([503]);
    expect((await post(PROTO_BODY, { contentType: 'text/plain' })).status).toBe(415);
    expect((await post(PROTO_BODY, { url: `${receiver.origin}/v1/logs` })).status).toBe(404);
    expect((await fetch(receiver.url)).status).toBe(405);
    expect((await post(PROTO_BODY, { headers: { 'content-encoding': 'gzip' } })).status).toBe(400);
    expect((await post(PROTO_BODY, { headers: { 'content-encoding': 'br' } })).status).toBe(415);
    expect((await post(PROTO_BODY)).status).toBe(503);
    expect(receiver.requests().map((r) => [r.status, r.refused === undefined])).toEqual([
      [415, false],
      [404, false],
      [405, false],
      [400, false],
      [415, false],
      [503, true],
    ]);
    expect(receiver.requests()[3]?.refused).toMatch(/broken gzip body/);
  });

  it('waits for a number of requests, and says how many came when they do not', async () => {
    const waiting = receiver.waitForRequests(2);
    expect(await stillPending(waiting, 50)).toBe(true);
    await post(PROTO_BODY);
    await post(PROTO_BODY);
    expect(await waiting).toHaveLength(2);
    await expect(receiver.waitForRequests(3, 100)).rejects.toThrow('2 of 3 requests arrived within 100 ms');
  });

  it('forgets its requests and script on reset, and rejects a hold still waiting when it closes', async () => {
    receiver.script([503, 503]);
    await post(PROTO_BODY);
    receiver.reset();
    expect(receiver.requests()).toEqual([]);
    expect((await post(PROTO_BODY)).status).toBe(200);
    expect(receiver.requests().map((r) => r.seq)).toEqual([0]);

    const held = receiver.holdNext();
    await receiver.close();
    await expect(held.arrived).rejects.toThrow('the receiver closed before the held request arrived');
    receiver = await startOtlpMetricsReceiver(); // for afterEach
  });
});
