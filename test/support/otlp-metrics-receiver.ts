// A scripted OTLP/HTTP metrics receiver for tests: keeps every body as it arrived, answers from a script
// (then 200), and can hold a request unanswered. It decodes nothing itself: see otlp-metrics-decode.ts.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buffer } from 'node:stream/consumers';
import { gunzipSync } from 'node:zlib';
import type { OtlpEncoding } from './otlp-decode.js';
import { type ReceivedMetricsRequest, decodeMetricsRequest } from './otlp-metrics-decode.js';

/** How to answer one request. */
interface ScriptedAnswer {
  readonly status: number;
  /** Sent as the Retry-After header as given (delay-seconds, or an HTTP date). */
  readonly retryAfter?: string | number;
  /** Default: an empty message in the request's encoding (no bytes in protobuf, `{}` in JSON), whatever the status. */
  readonly body?: Uint8Array | string;
}

/** A status alone, or the whole answer. */
type Answer = number | ScriptedAnswer;

/** One request as it arrived, and how it was answered. */
interface MetricsPost {
  /** 0-based position in requests(): the order the bodies finished arriving. */
  readonly seq: number;
  readonly method: string;
  readonly path: string;
  readonly contentType: string;
  readonly contentEncoding: string;
  /** Lower-cased header names, as node reports them. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** From the content type; undefined when it is neither OTLP encoding (answered 415). */
  readonly encoding?: OtlpEncoding;
  /** The body as sent (gzip-compressed when contentEncoding is gzip). */
  readonly rawBody: Uint8Array;
  /** The body uncompressed: the ExportMetricsServiceRequest's bytes. */
  readonly body: Uint8Array;
  /** Date.now() when the request's headers arrived. */
  readonly receivedAt: number;
  /** Why the receiver answered it itself (404, 405, 415, 400 for a broken gzip body) instead of the script. */
  readonly refused?: string;
  /** Held by holdNext(). */
  readonly held: boolean;
  /** The status answered; undefined while held. */
  status?: number;
  /** The Retry-After header answered, if any. */
  retryAfter?: string;
  /** Date.now() when the answer was written. */
  answeredAt?: number;
  /** The client closed the connection before the answer was written (a client killed while held). */
  disconnected: boolean;
}

/** The next request that arrives, kept unanswered until released. */
interface HeldRequest {
  /** Resolves once it has arrived, body read; rejects if the receiver closes first. */
  readonly arrived: Promise<MetricsPost>;
  /** Resolves if the client closes the connection before the answer (never otherwise). */
  readonly disconnected: Promise<void>;
  /** Answers it (default 200); released before it arrived, it is answered so on arrival. */
  release(answer?: Answer): void;
}

interface OtlpMetricsReceiver {
  /** http://127.0.0.1:PORT, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly origin: string;
  /** The metrics URL, origin + /v1/metrics (for OTEL_EXPORTER_OTLP_METRICS_ENDPOINT). */
  readonly url: string;
  /**
   * Answers for the next OTLP requests, one each, in order; 200 once they are used up. Replaces what is left
   * of an earlier script. A held request takes no answer from it, nor does one the receiver refuses.
   */
  script(answers: readonly Answer[]): void;
  /** Holds the next OTLP request not already held (each call one more). */
  holdNext(): HeldRequest;
  /** Every request, in arrival order, refused ones included. */
  requests(): readonly MetricsPost[];
  /** The requests answered 2xx to a client still there: what a collector would have taken in. */
  delivered(): readonly MetricsPost[];
  /** delivered(), decoded (protobuf by protoc, JSON by hand), in order. */
  decodeDelivered(): Promise<ReceivedMetricsRequest[]>;
  /** Resolves with requests() once it holds at least `count`; rejects after timeoutMs (default 10 s). */
  waitForRequests(count: number, timeoutMs?: number): Promise<readonly MetricsPost[]>;
  /** Forgets the requests and what is left of the script. */
  reset(): void;
  /** Stops listening and drops every connection: a held request is never answered, a pending hold rejects. */
  close(): Promise<void>;
}

const METRICS_PATH = '/v1/metrics';

function encodingOf(contentType: string): OtlpEncoding | undefined {
  const mime = contentType.split(';')[0]?.trim().toLowerCase();
  if (mime === 'application/x-protobuf') return 'protobuf';
  if (mime === 'application/json') return 'json';
  return undefined;
}

interface HoldSlot {
  bound?: { post: MetricsPost; res: ServerResponse };
  answer?: ScriptedAnswer;
  resolveArrived(post: MetricsPost): void;
  rejectArrived(error: Error): void;
  resolveDisconnected(): void;
}

const normalize = (answer: Answer | undefined): ScriptedAnswer => (typeof answer === 'number' ? { status: answer } : (answer ?? { status: 200 }));

/** Starts a receiver on 127.0.0.1, on `port` (e.g. one a client was already failing to reach) or a free one. */
export async function startOtlpMetricsReceiver(port = 0): Promise<OtlpMetricsReceiver> {
  let log: MetricsPost[] = [];
  let pending: ScriptedAnswer[] = [];
  const holds: HoldSlot[] = [];
  const waiters = new Set<() => void>();

  const respond = (res: ServerResponse, post: MetricsPost, answer: ScriptedAnswer): void => {
    post.status = answer.status;
    if (answer.retryAfter !== undefined) post.retryAfter = String(answer.retryAfter);
    post.answeredAt = Date.now();
    if (res.destroyed) return;
    const json = post.encoding === 'json';
    const headers: Record<string, string> = { 'content-type': json ? 'application/json' : 'application/x-protobuf' };
    if (post.retryAfter !== undefined) headers['retry-after'] = post.retryAfter;
    // An empty ExportMetricsServiceResponse (or google.rpc.Status) in the request's encoding.
    res.writeHead(answer.status, headers).end(answer.body ?? (json ? '{}' : ''));
  };

  const server = createServer((req, res) => {
    const receivedAt = Date.now();
    res.on('error', () => undefined);
    void (async () => {
      const rawBody = new Uint8Array(await buffer(req));
      const contentType = req.headers['content-type'] ?? '';
      const contentEncoding = (req.headers['content-encoding'] ?? '').toLowerCase();
      const encoding = encodingOf(contentType);
      const path = req.url ?? '';
      let body = rawBody;
      let refused: [number, string] | undefined;
      if (path !== METRICS_PATH) refused = [404, `not ${METRICS_PATH}`];
      else if (req.method !== 'POST') refused = [405, `${req.method ?? ''} instead of POST`];
      else if (encoding === undefined) refused = [415, `content type ${JSON.stringify(contentType)}`];
      else if (contentEncoding === 'gzip') {
        try {
          body = new Uint8Array(gunzipSync(rawBody));
        } catch (error) {
          refused = [400, `broken gzip body: ${String(error)}`];
        }
      } else if (contentEncoding !== '' && contentEncoding !== 'identity') refused = [415, `content encoding ${contentEncoding}`];

      const slot = refused === undefined ? holds.find((hold) => hold.bound === undefined) : undefined;
      const post: MetricsPost = {
        seq: log.length,
        method: req.method ?? '',
        path,
        contentType,
        contentEncoding,
        headers: { ...req.headers },
        ...(encoding === undefined ? {} : { encoding }),
        rawBody,
        body,
        receivedAt,
        ...(refused === undefined ? {} : { refused: refused[1] }),
        held: slot !== undefined,
        disconnected: false,
      };
      log.push(post);
      res.on('close', () => {
        if (res.writableFinished) return;
        post.disconnected = true;
        slot?.resolveDisconnected();
      });

      if (refused !== undefined) {
        post.status = refused[0];
        post.answeredAt = Date.now();
        res.writeHead(refused[0]).end();
      } else if (slot !== undefined) {
        slot.bound = { post, res };
        slot.resolveArrived(post);
        if (slot.answer !== undefined) respond(res, post, slot.answer);
      } else {
        respond(res, post, pending.shift() ?? { status: 200 });
      }
      for (const wake of waiters) wake();
    })().catch(() => res.destroy());
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A client gone before its answer never learnt of it: not delivered, whatever was answered later.
  const delivered = (): MetricsPost[] => log.filter((post) => post.status !== undefined && post.status >= 200 && post.status < 300 && !post.disconnected);

  return {
    origin,
    url: `${origin}${METRICS_PATH}`,
    script: (answers) => {
      pending = answers.map(normalize);
    },
    holdNext: () => {
      let resolveArrived!: (post: MetricsPost) => void;
      let rejectArrived!: (error: Error) => void;
      let resolveDisconnected!: () => void;
      const arrived = new Promise<MetricsPost>((resolve, reject) => {
        resolveArrived = resolve;
        rejectArrived = reject;
      });
      // A test that never awaits `arrived` must not fail on close() with an unhandled rejection.
      arrived.catch(() => undefined);
      const disconnected = new Promise<void>((resolve) => {
        resolveDisconnected = resolve;
      });
      const slot: HoldSlot = { resolveArrived, rejectArrived, resolveDisconnected };
      holds.push(slot);
      return {
        arrived,
        disconnected,
        release: (answer) => {
          if (slot.answer !== undefined) throw new Error('this held request was already released');
          slot.answer = normalize(answer);
          if (slot.bound !== undefined) respond(slot.bound.res, slot.bound.post, slot.answer);
        },
      };
    },
    requests: () => [...log],
    delivered,
    decodeDelivered: () => Promise.all(delivered().map((post) => decodeMetricsRequest(post.encoding ?? 'protobuf', post.body))),
    waitForRequests: (count, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (log.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve([...log]);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${log.length} of ${count} requests arrived within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    reset: () => {
      log = [];
      pending = [];
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const slot of holds) if (slot.bound === undefined) slot.rejectArrived(new Error('the receiver closed before the held request arrived'));
        server.close((error) => (error ? reject(error) : resolve()));
        // Clients keep their sockets alive, and a held request is never to be answered: drop them all.
        server.closeAllConnections();
      }),
  };
}
