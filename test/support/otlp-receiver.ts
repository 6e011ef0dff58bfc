// A real OTLP/HTTP logs receiver for tests: decodes what the SDK sends (protobuf or JSON) and can fail or hold on request.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { createLogsDecoder, type OtlpEncoding, type ReceivedLogRecord } from './otlp-decode.js';
import { buffer } from 'node:stream/consumers';

export type { ReceivedLogRecord } from './otlp-decode.js';

/** One POST as it arrived, and how it was answered. */
export interface ReceivedRequest {
  readonly path: string;
  readonly contentType: string;
  readonly contentEncoding: string;
  /** Lower-cased header names, as node reports them. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly encoding?: OtlpEncoding;
  /** Records decoded from the body (kept in records() only when answered 2xx). */
  readonly recordCount: number;
  /** The status answered; undefined while the response is held. */
  status?: number;
  readonly decodeError?: string;
}

export interface OtlpReceiver {
  /** Full logs URL, e.g. http://127.0.0.1:PORT/v1/logs. */
  readonly url: string;
  /** While down every export is answered 503 (retryable), so the exporter's retries run; nothing is kept. */
  setDown(down: boolean): void;
  /** The status of every following answer that is not a 503 for being down (default 200). */
  setStatus(code: number): void;
  /** While held, requests are decoded and logged but not answered; releasing answers them all. */
  setHold(hold: boolean): void;
  /** Holds from the first request whose records match (that one included), as setHold(true) would at that instant. */
  holdWhen(match: ((records: readonly ReceivedLogRecord[]) => boolean) | undefined): void;
  /** Accepted records (answered 2xx), in arrival order. */
  records(): readonly ReceivedLogRecord[];
  /** log.record.uid of every accepted record, in arrival order, duplicates kept. */
  uids(): readonly string[];
  requests(): readonly ReceivedRequest[];
  /** Forgets records and requests (controls are kept). */
  reset(): void;
  close(): Promise<void>;
}

const LOGS_PATH = '/v1/logs';

function encodingOf(contentType: string): OtlpEncoding | undefined {
  const mime = contentType.split(';')[0]?.trim().toLowerCase();
  if (mime === 'application/x-protobuf') return 'protobuf';
  if (mime === 'application/json') return 'json';
  return undefined;
}

/** Starts a receiver on 127.0.0.1, on `port` (one an exporter was already failing to reach) or a free one. */
export async function startOtlpReceiver(port = 0): Promise<OtlpReceiver> {
  const decode = createLogsDecoder();
  let down = false;
  let status = 200;
  let hold = false;
  let accepted: ReceivedLogRecord[] = [];
  let log: ReceivedRequest[] = [];
  const held: Array<() => void> = [];
  let holdMatch: ((records: readonly ReceivedLogRecord[]) => boolean) | undefined;

  const answer = (res: ServerResponse, entry: ReceivedRequest, records: ReceivedLogRecord[]): void => {
    const code = down ? 503 : status;
    entry.status = code;
    if (code >= 200 && code < 300) accepted.push(...records);
    // An empty ExportLogsServiceResponse, in the request's encoding (OTLP/HTTP requires the same Content-Type).
    const json = entry.encoding === 'json';
    res.writeHead(code, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
    res.end(json && code < 300 ? '{}' : undefined);
  };

  const server = createServer((req, res) => {
    void (async () => {
      const raw = await buffer(req);
      const contentType = req.headers['content-type'] ?? '';
      const contentEncoding = req.headers['content-encoding'] ?? '';
      const encoding = encodingOf(contentType);
      const base = { path: req.url ?? '', contentType, contentEncoding, headers: { ...req.headers }, encoding };
      if (req.method !== 'POST' || req.url !== LOGS_PATH || encoding === undefined) {
        log.push({ ...base, recordCount: 0, status: encoding === undefined ? 415 : 404 });
        res.writeHead(encoding === undefined ? 415 : 404).end();
        return;
      }
      let records: ReceivedLogRecord[];
      try {
        records = decode(encoding, contentEncoding === 'gzip' ? gunzipSync(raw) : raw);
      } catch (error) {
        log.push({ ...base, recordCount: 0, status: 400, decodeError: String(error) });
        res.writeHead(400).end();
        return;
      }
      const entry: ReceivedRequest = { ...base, recordCount: records.length };
      log.push(entry);
      if (!hold && holdMatch?.(records) === true) hold = true;
      if (hold) held.push(() => answer(res, entry, records));
      else answer(res, entry, records);
    })().catch(() => res.destroy());
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  const releaseHeld = (): void => {
    for (const release of held.splice(0)) release();
  };

  return {
    url: `http://127.0.0.1:${bound}${LOGS_PATH}`,
    setDown: (value) => {
      down = value;
    },
    setStatus: (code) => {
      status = code;
    },
    setHold: (value) => {
      hold = value;
      if (!value) releaseHeld();
    },
    holdWhen: (match) => {
      holdMatch = match;
    },
    records: () => [...accepted],
    uids: () => accepted.map((record) => String(record.attributes['log.record.uid'])),
    requests: () => [...log],
    reset: () => {
      accepted = [];
      log = [];
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        hold = false;
        releaseHeld();
        server.close((error) => (error ? reject(error) : resolve()));
        // The exporter keeps its sockets alive; do not wait for them.
        server.closeAllConnections();
      }),
  };
}
