// The receiver of bench/remote-write.ts and bench/otlp-metrics.ts, in a
// process of its own so its CPU is not charged to the sender: a remote-write
// endpoint on 127.0.0.1 that answers every request 204 and counts requests
// and body bytes (the wire size; decoding is the tests' job). GET /stats
// answers the counts. GET /sample/start keeps the bodies from then on, GET
// /sample answers their sizes summed (as sent, inflated from their snappy
// blocks, and that protobuf gzipped at zlib's default level, request by
// request) and stops keeping them: one cycle's bytes compression by
// compression, beside OTLP's (lib/otlp-receiver.ts does the same), measured
// here, outside the sender's process, once the push is over. Prints
// `{"url"}` when ready.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { uncompressSync } from 'snappy';

let requests = 0;
let bytes = 0;
let kept: Buffer[] | undefined;
const server = createServer((req, res) => {
  if (req.method === 'GET') {
    if (req.url === '/sample/start') kept = [];
    if (req.url === '/sample') {
      const sizes = { requests: 0, sent: 0, raw: 0, snappy: 0, gzip: 0 };
      for (const body of kept ?? []) {
        const raw = uncompressSync(body) as Buffer;
        sizes.requests++;
        sizes.sent += body.length;
        sizes.raw += raw.length;
        sizes.snappy += body.length;
        sizes.gzip += gzipSync(raw).length;
      }
      kept = undefined;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(sizes));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ requests, bytes }));
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    chunks.push(chunk);
  });
  req.on('end', () => {
    requests++;
    kept?.push(Buffer.concat(chunks));
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/write` })}\n`);
await new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
server.closeAllConnections();
await new Promise((resolve) => server.close(resolve));
