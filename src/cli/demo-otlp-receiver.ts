// The demo's OTLP receiver: beside the bundled simulator, an OTLP/HTTP logs
// endpoint that confirms every export and keeps nothing, so `npm start`
// forwards WAF deny events end to end (checkpoint, denied-request counters,
// the dashboards' WAF panels) without an OpenTelemetry Collector. Used only
// while otlp.endpoint is not set; it reads no record, so it is no test of the
// encoding (the tests decode with the official schema).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const OTLP_LOGS_PATH = '/v1/logs';

/** What an OTLP/HTTP receiver answers a full success with, per request encoding: an empty ExportLogsServiceResponse. */
const EMPTY_RESPONSE: Readonly<Record<string, string>> = { 'application/x-protobuf': '', 'application/json': '{}' };

export interface DemoOtlpReceiver {
  /** The logs URL, e.g. http://127.0.0.1:41234/v1/logs. */
  readonly url: string;
  close(): Promise<void>;
}

/** Listens on `host`, a free port. */
export async function startDemoOtlpReceiver(host: string): Promise<DemoOtlpReceiver> {
  const server = createServer((req, res) => {
    // Read to the end before answering, as a receiver would, so the client's connection can be reused.
    req.resume();
    req.on('end', () => {
      const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
      const answer = (status: number, contentType: string, body: string): void => {
        res.writeHead(status, { 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) }).end(body);
      };
      if (req.url !== OTLP_LOGS_PATH) return answer(404, 'text/plain', `not found: only POST ${OTLP_LOGS_PATH} is served here\n`);
      if (req.method !== 'POST') return answer(405, 'text/plain', `method not allowed: POST ${OTLP_LOGS_PATH}\n`);
      const empty = EMPTY_RESPONSE[type];
      if (empty === undefined) return answer(415, 'text/plain', 'unsupported content type: application/x-protobuf or application/json\n');
      answer(200, type, empty);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}${OTLP_LOGS_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // An export still being sent would hold close() open (idle keep-alive connections close with the server).
        server.closeAllConnections();
      }),
  };
}
