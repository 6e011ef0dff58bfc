// The OTLP metrics receiver of bench/otlp-metrics.ts, in a process of its own
// so its CPU is not charged to the sender: POST /v1/metrics on 127.0.0.1
// answered 200 with an empty body (an ExportMetricsServiceResponse with no
// partial_success encodes to nothing), counting requests and body bytes (the
// wire size; decoding and checking the points is the tests' job, and the
// bench counts points on the pushing side, from the sender's observer). Any
// other POST is answered 404, so a wrong URL fails the bench instead of
// counting. GET /stats answers the counts. GET /sample/start keeps the
// bodies from then on, GET /sample answers their sizes summed (as sent,
// snappy-compressed as remote-write sends its body, and gzipped at zlib's
// default level, what an OTLP/HTTP client may send as Content-Encoding: gzip,
// request by request) and stops keeping them: one cycle's bytes compression
// by compression, beside remote-write's (lib/rw-receiver.ts), measured here,
// outside the sender's process, once the push is over. Prints `{"url"}` when
// ready.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import { compressSync } from 'snappy';

let requests = 0;
let bytes = 0;
/** Each request of the sample, as sent and as decoded (a gzip body unzipped). */
let kept: Array<{ readonly sent: number; readonly body: Buffer }> | undefined;
const server = createServer((req, res) => {
  if (req.method === 'GET') {
    if (req.url === '/sample/start') kept = [];
    if (req.url === '/sample') {
      const sizes = { requests: 0, sent: 0, raw: 0, snappy: 0, gzip: 0 };
      for (const { sent, body } of kept ?? []) {
        sizes.requests++;
        sizes.sent += sent;
        sizes.raw += body.length;
        sizes.snappy += compressSync(body).length;
        sizes.gzip += gzipSync(body).length;
      }
      kept = undefined;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(sizes));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ requests, bytes }));
    return;
  }
  const known = req.method === 'POST' && req.url === '/v1/metrics';
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    if (!known) {
      res.writeHead(404).end();
      return;
    }
    requests++;
    const body = Buffer.concat(chunks);
    bytes += body.length;
    kept?.push({ sent: body.length, body: req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body });
    res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/x-protobuf', 'content-length': '0' }).end();
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/metrics` })}\n`);
await new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
server.closeAllConnections();
await new Promise((resolve) => server.close(resolve));
