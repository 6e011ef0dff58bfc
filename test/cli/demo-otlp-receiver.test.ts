// The demo's OTLP receiver answers as an OTLP/HTTP receiver answers a full
// success (an empty ExportLogsServiceResponse in the request's encoding),
// refuses what is not an export, and closes with an export half sent.
import { request } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { startDemoOtlpReceiver, type DemoOtlpReceiver } from '../../src/cli/demo-otlp-receiver.js';

let receiver: DemoOtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

async function send(url: string, method: string, contentType: string, body: string | Uint8Array): Promise<{ status: number; type: string; body: string }> {
  const res = await fetch(url, { method, headers: { 'content-type': contentType }, ...(method === 'GET' ? {} : { body }) });
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
}

it.each([
  ['protobuf', 'application/x-protobuf', new Uint8Array([0x0a, 0x00]), ''],
  ['JSON', 'application/json', '{"resourceLogs":[]}', '{}'],
  ['JSON with a charset', 'application/json; charset=utf-8', '{"resourceLogs":[]}', '{}'],
])('confirms a %s export with an empty response in that encoding', async (_name, contentType, body, expected) => {
  receiver = await startDemoOtlpReceiver('127.0.0.1');
  expect(receiver.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/logs$/);
  const answer = await send(receiver.url, 'POST', contentType, body);
  expect(answer).toEqual({ status: 200, type: contentType.split(';')[0], body: expected });
});

it.each([
  ['another path', '/v1/traces', 'POST', 'application/x-protobuf', 404],
  ['another method', '/v1/logs', 'GET', 'application/x-protobuf', 405],
  ['another encoding', '/v1/logs', 'POST', 'text/plain', 415],
])('refuses %s', async (_name, path, method, contentType, status) => {
  receiver = await startDemoOtlpReceiver('127.0.0.1');
  const answer = await send(new URL(path, receiver.url).href, method, contentType, 'x');
  expect(answer.status).toBe(status);
});

it('closes while an export is half sent', async () => {
  receiver = await startDemoOtlpReceiver('127.0.0.1');
  const { url } = receiver;
  const req = request(url, { method: 'POST', headers: { 'content-type': 'application/x-protobuf', 'content-length': '100' } });
  const ended = new Promise<string>((resolve) => req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message)));
  req.write(Buffer.alloc(10));
  await new Promise<void>((resolve) => req.once('socket', (s) => s.once('connect', () => resolve())));
  await receiver.close();
  receiver = undefined;
  expect(await ended).toBe('ECONNRESET');
});
