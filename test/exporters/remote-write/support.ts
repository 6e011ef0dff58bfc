// Test side of remote-write: a decoder independent of the encoder (the .proto text, parsed), a fake history source, and a loopback receiver.
import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';
import { uncompressSync } from 'snappy';
import type { HistoryPage, HistorySource, PageSettlement, TimedSample } from '../../../src/exporters/push/source.js';

const PROTO = `
syntax = "proto3";
package prometheus;
message WriteRequest { repeated TimeSeries timeseries = 1; }
message TimeSeries { repeated Label labels = 1; repeated Sample samples = 2; }
message Label { string name = 1; string value = 2; }
message Sample { double value = 1; int64 timestamp = 2; }
`;
const WRITE_REQUEST = protobuf.parse(PROTO).root.lookupType('prometheus.WriteRequest');

interface DecodedSeries {
  labels: { name: string; value: string }[];
  samples: { value: number; timestamp: number }[];
}

/** Snappy block -> WriteRequest -> plain objects; int64 timestamps read as decimal strings, then numbers (exact below 2^53). */
export function decodeBody(body: Uint8Array): DecodedSeries[] {
  const raw = uncompressSync(Buffer.from(body), { asBuffer: true }) as Buffer;
  const object = WRITE_REQUEST.toObject(WRITE_REQUEST.decode(raw), { longs: String, defaults: true, arrays: true }) as {
    timeseries: { labels: { name: string; value: string }[]; samples: { value: number; timestamp: string }[] }[];
  };
  return object.timeseries.map((ts) => ({
    labels: ts.labels.map((l) => ({ name: l.name, value: l.value })),
    samples: ts.samples.map((s) => ({ value: s.value, timestamp: Number(s.timestamp) })),
  }));
}

export function sample(name: string, labels: Record<string, string>, timestampMs: number, value: number): TimedSample {
  return { name, labels, timestampMs, value };
}

/** `count` samples of distinct series, all at `timestampMs`. */
export function samples(owner: string, count: number, timestampMs: number): TimedSample[] {
  return Array.from({ length: count }, (_, i) => sample('edge_requests_total', { owner, i: String(i) }, timestampMs, i));
}

interface SettleCall {
  readonly pages: readonly { owner: string; seq: number }[];
  readonly how: PageSettlement;
}

/** In-memory queues per owner, as the collectors' history queues behave: heads, settle only heads, listeners on add. */
export class FakeSource implements HistorySource {
  readonly queues = new Map<string, HistoryPage[]>();
  readonly settled: SettleCall[] = [];
  private readonly listeners = new Set<() => void>();
  private readonly seqs = new Map<string, number>();
  /** Called inside settle() before it resolves (a test can block or fail it). */
  onSettle: ((call: SettleCall) => Promise<void> | void) | undefined;

  add(owner: string, pageSamples: readonly TimedSample[], createdMs = 0): HistoryPage {
    const seq = (this.seqs.get(owner) ?? 0) + 1;
    this.seqs.set(owner, seq);
    const page: HistoryPage = { owner, seq, createdMs, samples: pageSamples };
    const queue = this.queues.get(owner) ?? [];
    queue.push(page);
    this.queues.set(owner, queue);
    for (const listener of [...this.listeners]) listener();
    return page;
  }

  /** How often heads() was asked: the sender composes once per call. */
  headsCalls = 0;

  heads(): readonly HistoryPage[] {
    this.headsCalls += 1;
    const out: HistoryPage[] = [];
    for (const queue of this.queues.values()) if (queue[0] !== undefined) out.push(queue[0]);
    return out;
  }

  pendingSamples(): number {
    let n = 0;
    for (const queue of this.queues.values()) for (const page of queue) n += page.samples.length;
    return n;
  }

  async settle(pages: readonly HistoryPage[], how: PageSettlement): Promise<void> {
    const call: SettleCall = { pages: pages.map((p) => ({ owner: p.owner, seq: p.seq })), how };
    for (const page of pages) {
      const queue = this.queues.get(page.owner);
      if (queue?.[0] !== page) throw new Error(`settle: ${page.owner}#${page.seq} is not its owner's head`);
    }
    await this.onSettle?.(call);
    for (const page of pages) this.queues.get(page.owner)?.shift();
    this.settled.push(call);
  }

  onPages(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }
}

export interface ReceivedRequest {
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly series: DecodedSeries[];
}

/** What the receiver answers to the nth request (0-based). */
type Reply = (index: number, request: ReceivedRequest) => Answer | Promise<Answer> | 'hang';
interface Answer {
  status: number;
  body?: string;
}

export interface Receiver {
  readonly url: string;
  readonly port: number;
  readonly requests: ReceivedRequest[];
  /** Most requests ever open at once (answered or not). */
  readonly maxInFlight: () => number;
  /** Resolves once `count` requests have arrived. */
  received(count: number): Promise<void>;
  close(): Promise<void>;
}

/** A remote-write receiver on 127.0.0.1 (port 0 unless given); https when `tls` is given. */
export async function startReceiver(reply: Reply = () => ({ status: 204 }), options: { port?: number; tls?: { cert: Buffer; key: Buffer } } = {}): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const hanging: ServerResponse[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => (inFlight -= 1));
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let series: DecodedSeries[] = [];
      try {
        series = decodeBody(body);
      } catch {
        // kept as []: the test looks at the body
      }
      const request: ReceivedRequest = { headers: req.headers, body, series };
      const index = requests.length;
      requests.push(request);
      for (const waiter of waiters.filter((w) => requests.length >= w.count)) waiter.resolve();
      const answer = reply(index, request);
      if (answer === 'hang') {
        hanging.push(res);
        return;
      }
      void Promise.resolve(answer).then((a) => {
        res.writeHead(a.status, { 'content-type': 'text/plain' });
        res.end(a.body ?? '');
      });
    });
  };
  const server: Server = options.tls === undefined ? createHttpServer(handler) : createHttpsServer(options.tls, handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}/api/v1/write`,
    port,
    requests,
    maxInFlight: () => maxInFlight,
    received: (count) =>
      requests.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve })),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The labels of a decoded series as one object, for comparing. */
export function labelsOf(series: DecodedSeries): Record<string, string> {
  return Object.fromEntries(series.labels.map((l) => [l.name, l.value]));
}

/** Polls (on the event loop, not a clock assertion) until `check` holds. */
export async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 2));
}
