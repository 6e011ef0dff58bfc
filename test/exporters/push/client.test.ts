import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PushClient, type PushClientOptions } from '../../../src/exporters/push/client.js';
import { directEndpoint, type TlsFiles } from '../../../src/outbound/index.js';
import { encodeBody } from '../../../src/exporters/remote-write/encode.js';

/** Remote-write's own headers: the client sends whatever protocol headers its pipe gives it. */
const RW_HEADERS = { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', 'x-prometheus-remote-write-version': '0.1.0' };
import { freePort } from '../../support/ports.js';
import { labelsOf, sample, startReceiver, type Receiver } from '../remote-write/support.js';

const BODY = encodeBody([{ owner: 'a', seq: 1, createdMs: 0, samples: [sample('m', { zone: 'z' }, 1_700_000_000_000, 3)] }]);

let dir: string;
let receiver: Receiver | undefined;
let client: PushClient | undefined;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'edge-rw-client-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await client?.close();
  await receiver?.close();
  client = undefined;
  receiver = undefined;
});

/** The receiver at `url` reached directly, with `tls` when given. */
function at(url: string, tls?: TlsFiles): PushClientOptions['endpoint'] {
  return { ...directEndpoint('remote_write', url), ...(tls === undefined ? {} : { tls }) };
}

function makeClient({ url, tls, ...options }: Partial<PushClientOptions> & { url: string; tls?: TlsFiles }): PushClient {
  client = new PushClient({ timeoutMs: 5_000, endpoint: at(url, tls), protocolHeaders: RW_HEADERS, ...options });
  return client;
}

describe('PushClient', () => {
  it('posts the body with the remote-write 1.0 headers and the extra ones', async () => {
    receiver = await startReceiver();
    const c = makeClient({ url: receiver.url, headers: { 'X-Scope-OrgID': 'tenant-1', 'Content-Type': 'text/plain' }, userAgent: 'edge-exporter/9.9.9' });
    await expect(c.send(BODY)).resolves.toEqual({ kind: 'status', status: 204, message: '' });
    const [request] = receiver.requests;
    expect(request?.headers['content-type']).toBe('application/x-protobuf');
    expect(request?.headers['content-encoding']).toBe('snappy');
    expect(request?.headers['x-prometheus-remote-write-version']).toBe('0.1.0');
    expect(request?.headers['user-agent']).toBe('edge-exporter/9.9.9');
    expect(request?.headers['x-scope-orgid']).toBe('tenant-1');
    expect(request?.headers.authorization).toBeUndefined();
    expect(Buffer.compare(request?.body ?? Buffer.alloc(0), Buffer.from(BODY))).toBe(0);
    expect(request?.series.map(labelsOf)).toEqual([{ __name__: 'm', zone: 'z' }]);
  });

  it('sends basic auth, inline or from a file', async () => {
    receiver = await startReceiver();
    const passwordFile = join(dir, 'password');
    writeFileSync(passwordFile, '  s3cret-from-file\n');
    await makeClient({ url: receiver.url, auth: { type: 'basic', username: 'bob', password: 'inline-pw' } }).send(BODY);
    await client?.close();
    await makeClient({ url: receiver.url, auth: { type: 'basic', username: 'bob', passwordFile } }).send(BODY);
    expect(receiver.requests.map((r) => r.headers.authorization)).toEqual([
      `Basic ${Buffer.from('bob:inline-pw').toString('base64')}`,
      `Basic ${Buffer.from('bob:s3cret-from-file').toString('base64')}`,
    ]);
  });

  it('sends a bearer token, and reads a token file again for every request', async () => {
    receiver = await startReceiver();
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'first-token\n');
    const c = makeClient({ url: receiver.url, auth: { type: 'bearer', tokenFile } });
    await c.send(BODY);
    writeFileSync(tokenFile, 'rotated-token\n');
    await c.send(BODY);
    await client?.close();
    await makeClient({ url: receiver.url, auth: { type: 'bearer', token: 'inline-token' } }).send(BODY);
    expect(receiver.requests.map((r) => r.headers.authorization)).toEqual(['Bearer first-token', 'Bearer rotated-token', 'Bearer inline-token']);
  });

  it('reports an unreadable token file as a local error naming the file, without sending', async () => {
    receiver = await startReceiver();
    const tokenFile = join(dir, 'missing-token');
    const outcome = await makeClient({ url: receiver.url, auth: { type: 'bearer', tokenFile } }).send(BODY);
    expect(outcome).toEqual({ kind: 'local', error: `cannot read the bearer token file ${tokenFile}: no such file or directory (ENOENT)`, code: 'ENOENT' });
    expect(receiver.requests).toHaveLength(0);
  });

  it('returns an error status with a short excerpt of the body, credentials cut out', async () => {
    receiver = await startReceiver(() => ({ status: 400, body: `out of order sample; auth was Bearer tok-123\n${'x'.repeat(1_000)}` }));
    const outcome = await makeClient({ url: receiver.url, auth: { type: 'bearer', token: 'tok-123' } }).send(BODY);
    expect(outcome.kind).toBe('status');
    if (outcome.kind !== 'status') return;
    expect(outcome.status).toBe(400);
    expect(outcome.message.startsWith('out of order sample; auth was Bearer [REDACTED] xxx')).toBe(true);
    expect(outcome.message).not.toContain('tok-123');
    expect(outcome.message.length).toBeLessThanOrEqual(257);
  });

  it('cuts basic auth and extra header values out of the excerpt too', async () => {
    receiver = await startReceiver((_, r) => ({ status: 401, body: `denied: ${r.headers.authorization} key=${r.headers['x-api-key']} pw=pw-9876` }));
    const outcome = await makeClient({ url: receiver.url, headers: { 'X-Api-Key': 'key-5555' }, auth: { type: 'basic', username: 'bob', password: 'pw-9876' } }).send(BODY);
    expect(outcome).toEqual({ kind: 'status', status: 401, message: 'denied: Basic [REDACTED] key=[REDACTED] pw=[REDACTED]' });
  });

  it('reports a refused connection as a network error', async () => {
    const port = await freePort();
    const outcome = await makeClient({ url: `http://127.0.0.1:${port}/api/v1/write` }).send(BODY);
    expect(outcome).toMatchObject({ kind: 'network', code: 'ECONNREFUSED' });
  });

  it('reports no answer within timeoutMs as a network time-out, and an aborted signal as aborted', async () => {
    receiver = await startReceiver(() => 'hang');
    const c = makeClient({ url: receiver.url, timeoutMs: 100 });
    await expect(c.send(BODY)).resolves.toEqual({ kind: 'network', error: 'no answer within 100 ms', code: 'TIMEOUT' });
    const stop = new AbortController();
    const sent = c.send(BODY, stop.signal);
    await receiver.received(2);
    stop.abort();
    await expect(sent).resolves.toEqual({ kind: 'aborted' });
  });

  it('refuses credentials in the url and an auth with both or neither value', () => {
    expect(() => new PushClient({ endpoint: at('http://u:p@127.0.0.1:1/w'), timeoutMs: 1, protocolHeaders: RW_HEADERS })).toThrow(/credentials in the url/);
    expect(() => new PushClient({ endpoint: at('http://127.0.0.1:1/w'), timeoutMs: 1, protocolHeaders: RW_HEADERS, auth: { type: 'bearer' } })).toThrow(/exactly one of token/);
    expect(
      () => new PushClient({ endpoint: at('http://127.0.0.1:1/w'), timeoutMs: 1, protocolHeaders: RW_HEADERS, auth: { type: 'basic', username: 'u', password: 'a', passwordFile: 'b' } }),
    ).toThrow(/exactly one of password/);
  });
});

describe('PushClient over TLS', () => {
  let tls: { cert: Buffer; key: Buffer };
  let certFile: string;
  beforeAll(() => {
    const tlsDir = join(dir, 'tls');
    mkdirSync(tlsDir);
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=receiver.test', '-addext', 'subjectAltName=DNS:receiver.test,IP:127.0.0.1',
      '-keyout', join(tlsDir, 'key.pem'), '-out', join(tlsDir, 'cert.pem')], { stdio: 'ignore' });
    certFile = join(tlsDir, 'cert.pem');
    tls = { cert: readFileSync(certFile), key: readFileSync(join(tlsDir, 'key.pem')) };
  });

  it('verifies the receiver against caFile', async () => {
    receiver = await startReceiver(undefined, { tls });
    await expect(makeClient({ url: receiver.url, tls: { caFile: certFile } }).send(BODY)).resolves.toEqual({ kind: 'status', status: 204, message: '' });
    expect(receiver.requests).toHaveLength(1);
  });

  it('checks serverName against the certificate', async () => {
    receiver = await startReceiver(undefined, { tls });
    await expect(makeClient({ url: receiver.url, tls: { caFile: certFile, serverName: 'receiver.test' } }).send(BODY)).resolves.toMatchObject({ status: 204 });
    await client?.close();
    const wrongName = await makeClient({ url: receiver.url, tls: { caFile: certFile, serverName: 'other.test' } }).send(BODY);
    expect(wrongName).toMatchObject({ kind: 'network', code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    expect(receiver.requests).toHaveLength(1);
  });

  it('refuses a self-signed receiver without caFile, and accepts it with insecureSkipVerify', async () => {
    receiver = await startReceiver(undefined, { tls });
    const refused = await makeClient({ url: receiver.url }).send(BODY);
    expect(refused).toMatchObject({ kind: 'network', code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    await client?.close();
    await expect(makeClient({ url: receiver.url, tls: { insecureSkipVerify: true } }).send(BODY)).resolves.toMatchObject({ status: 204 });
    expect(receiver.requests).toHaveLength(1);
  });
});
