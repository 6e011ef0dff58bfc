// The receiver of bench/remote-write.ts, in a process of its own so its CPU
// is not charged to the sender: a remote-write endpoint on 127.0.0.1 that
// answers every request 204 and counts requests and body bytes (the wire
// size; decoding is the tests' job). GET /stats answers the counts. Prints
// `{"url"}` when ready.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

let requests = 0;
let bytes = 0;
const server = createServer((req, res) => {
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ requests, bytes }));
    return;
  }
  req.on('data', (chunk: Buffer) => (bytes += chunk.length));
  req.on('end', () => {
    requests++;
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/write` })}\n`);
await new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
server.closeAllConnections();
await new Promise((resolve) => server.close(resolve));
