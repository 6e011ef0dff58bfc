// The HTTP surface against fakes of what it serves: formats, compression,
// probes, auth, TLS and escaping.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { HttpServer } from '../../src/server/index.js';
import { acceptsGzip, type HttpServerOptions } from '../../src/server/server.js';
import type { MetricsSource } from '../../src/server/index.js';
import type { ExpositionFormat, JobStatus } from '../../src/server/types.js';

const TEXT = '# HELP edge_x X.\n# TYPE edge_x gauge\nedge_x 1\n';
const OM = `${TEXT}# EOF\n`;
const TYPES = { text: 'text/plain; version=0.0.4; charset=utf-8', openmetrics: 'application/openmetrics-text; version=1.0.0; charset=utf-8' };

const fakeMetrics: MetricsSource = {
  negotiate: (accept) => (accept?.includes('application/openmetrics-text') ? 'openmetrics' : 'text'),
  render: async (f: ExpositionFormat) => ({ body: Buffer.from(f === 'text' ? TEXT : OM), contentType: TYPES[f] }),
  renderGzip: async (f: ExpositionFormat) => ({ body: gzipSync(f === 'text' ? TEXT : OM), contentType: TYPES[f] }),
};

let servers: HttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  servers = [];
});

async function start(extra: Partial<HttpServerOptions> = {}, jobs: JobStatus[] = [], ready = true, state = 'running'): Promise<string> {
  const server = new HttpServer({
    host: '127.0.0.1', port: 0, metrics: fakeMetrics, version: '1.2.3',
    status: { status: () => ({ state, ready, jobs, notices: [], contractMismatches: [] }) }, ...extra,
  });
  servers.push(server);
  return server.start();
}

async function get(url: string, headers: Record<string, string> = {}, dispatcher?: Agent) {
  const res = await request(url, { headers, ...(dispatcher ? { dispatcher } : {}) });
  const body = Buffer.from(await res.body.arrayBuffer());
  return { status: res.statusCode, headers: res.headers, body };
}

describe('/metrics', () => {
  it('serves the text format by default', async () => {
    const base = await start();
    const r = await get(`${base}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe(TYPES.text);
    expect(r.body.toString()).toBe(TEXT);
  });
  it('serves OpenMetrics when asked for it', async () => {
    const base = await start();
    const r = await get(`${base}/metrics`, { accept: 'application/openmetrics-text;version=1.0.0,text/plain;q=0.5' });
    expect(r.headers['content-type']).toBe(TYPES.openmetrics);
    expect(r.body.toString()).toBe(OM);
  });
  it('gzips when the client accepts it', async () => {
    const base = await start();
    const r = await get(`${base}/metrics`, { 'accept-encoding': 'gzip, deflate' });
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(r.body).toString()).toBe(TEXT);
    expect(r.headers.vary).toBe('Accept, Accept-Encoding');
  });
  it('answers HEAD without a body and refuses POST', async () => {
    const base = await start();
    const head = await request(`${base}/metrics`, { method: 'HEAD' });
    expect(head.statusCode).toBe(200);
    expect((await head.body.arrayBuffer()).byteLength).toBe(0);
    const post = await request(`${base}/metrics`, { method: 'POST', body: 'x' });
    await post.body.dump();
    expect(post.statusCode).toBe(405);
  });
});

describe('probes and pages', () => {
  it('is alive always and ready only after a successful cycle', async () => {
    const notReady = await start({}, [], false);
    expect((await get(`${notReady}/healthz`)).status).toBe(200);
    expect((await get(`${notReady}/readyz`)).status).toBe(503);
    const isReady = await start({}, [], true);
    expect((await get(`${isReady}/readyz`)).status).toBe(200);
  });
  it('says why /readyz is not ready: no cycle yet while running, else the daemon\'s state', async () => {
    const waiting = await get(`${await start({}, [], false, 'running')}/readyz`);
    expect([waiting.status, waiting.body.toString()]).toEqual([503, 'not ready: no successful collection yet\n']);
    const stopping = await get(`${await start({}, [], false, 'stopping')}/readyz`);
    expect([stopping.status, stopping.body.toString()]).toEqual([503, 'not ready: the daemon is stopping\n']);
  });
  it('shows each collector on the landing page, escaped', async () => {
    const base = await start({}, [
      { name: 'access', kind: 'collector', running: false, lastRunAt: 0, lastSuccessAt: 0, lastOutcome: 'success' },
      { name: 'usage', kind: 'collector', running: false, lastRunAt: 1000, lastOutcome: 'error', lastError: { code: 'EDGE_UPSTREAM', message: '<script>alert(1)</script> 查询失败' } },
    ]);
    const html = (await get(`${base}/`)).body.toString();
    expect(html).toContain('<a href="/metrics">');
    expect(html).toContain('access');
    expect(html).toContain('<code>EDGE_UPSTREAM</code> &#60;script&#62;alert(1)&#60;/script&#62; 查询失败');
    expect(html).not.toContain('<script>');
  });
  it('escapes markup, quotes, ampersands and line breaks in every field it shows', async () => {
    const base = await start({ version: '1.0<b>' }, [
      { name: 'x"><img src=x onerror=alert(1)>', kind: 'collector', running: false, lastRunAt: 0, lastOutcome: 'error',
        lastError: { code: 'E&"<>', message: 'msg "quoted" & \'single\'\n<script>alert(1)</script>' } },
    ]);
    const html = (await get(`${base}/`)).body.toString();
    expect(html).toContain('<h1>edge-exporter 1.0&#60;b&#62;</h1>');
    expect(html).toContain('<td class="n" data-label="job">x&#34;&#62;&#60;img src=x onerror=alert(1)&#62; <small>(collector)</small></td>');
    expect(html).toContain('<td data-label="last error"><code>E&#38;&#34;&#60;&#62;</code> msg &#34;quoted&#34; &#38; &#39;single&#39;\n&#60;script&#62;alert(1)&#60;/script&#62;</td>');
    expect(html).not.toMatch(/<script>|<img|<b>/);
  });
  it('answers 404 elsewhere', async () => {
    const base = await start();
    expect((await get(`${base}/nope`)).status).toBe(404);
  });
});

describe('basic auth', () => {
  const creds = { username: 'prom', password: 's3cret:with colon' };
  const header = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` });
  it.each([
    ['no credentials', {}, 401],
    ['a wrong password', header('prom', 'nope'), 401],
    ['a wrong user', header('root', creds.password), 401],
    ['a malformed header', { authorization: 'Basic !!!' }, 401],
    ['the right credentials', header(creds.username, creds.password), 200],
  ])('/metrics with %s -> %i', async (_name, headers, status) => {
    const base = await start({ basicAuth: creds });
    const r = await get(`${base}/metrics`, headers);
    expect(r.status).toBe(status);
    if (status === 401) expect(r.headers['www-authenticate']).toMatch(/^Basic/);
  });
  it('protects the landing page but not the probes', async () => {
    const base = await start({ basicAuth: creds });
    expect((await get(`${base}/`)).status).toBe(401);
    expect((await get(`${base}/healthz`)).status).toBe(200);
    expect((await get(`${base}/readyz`)).status).toBe(200);
  });
  it.each([
    ['a Bearer token instead of Basic', { authorization: `Bearer ${creds.password}` }],
    ['credentials without a colon', { authorization: `Basic ${Buffer.from('prom').toString('base64')}` }],
    ['the password as the user', header(creds.password, creds.username)],
  ])('refuses %s, and the refusal repeats nothing it was sent', async (_name, headers) => {
    const base = await start({ basicAuth: creds });
    const r = await get(`${base}/metrics`, headers);
    expect(r.status).toBe(401);
    expect(r.body.toString()).toBe('unauthorized\n');
    expect(r.headers['www-authenticate']).toBe('Basic realm="edge-exporter", charset="UTF-8"');
  });
  it('refuses HEAD /metrics without credentials too', async () => {
    const base = await start({ basicAuth: creds });
    const head = await request(`${base}/metrics`, { method: 'HEAD' });
    await head.body.dump();
    expect(head.statusCode).toBe(401);
  });
});

describe('TLS', () => {
  let tls: { cert: Buffer; key: Buffer };
  beforeAll(() => {
    const dir = mkdtempSync(join(tmpdir(), 'edge-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    tls = { cert: readFileSync(join(dir, 'cert.pem')), key: readFileSync(join(dir, 'key.pem')) };
  });
  async function withAgent(check: (agent: Agent) => Promise<void>): Promise<void> {
    const agent = new Agent({ connect: { ca: tls.cert } });
    try {
      await check(agent);
    } finally {
      await agent.close();
    }
  }

  it('serves /metrics over HTTPS with the configured certificate', async () => {
    const base = await start({ tls });
    expect(base).toMatch(/^https:/);
    await withAgent(async (agent) => {
      const r = await get(`${base}/metrics`, {}, agent);
      expect(r.status).toBe(200);
      expect(r.body.toString()).toBe(TEXT);
    });
  });
  it('answers the probes over HTTPS and keeps basic auth in force', async () => {
    const creds = { username: 'prom', password: 'tls-pass' };
    const base = await start({ tls, basicAuth: creds });
    await withAgent(async (agent) => {
      expect((await get(`${base}/healthz`, {}, agent)).status).toBe(200);
      expect((await get(`${base}/readyz`, {}, agent)).status).toBe(200);
      expect((await get(`${base}/metrics`, {}, agent)).status).toBe(401);
      const ok = await get(`${base}/metrics`, { authorization: `Basic ${Buffer.from('prom:tls-pass').toString('base64')}` }, agent);
      expect(ok.status).toBe(200);
    });
  });
  it('serves nothing to plain HTTP on the TLS port: the connection is dropped', async () => {
    const base = await start({ tls });
    const plain = base.replace(/^https:/, 'http:');
    await expect(get(`${plain}/metrics`)).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
  });
  it('is refused by a client that does not trust the certificate', async () => {
    const base = await start({ tls });
    await expect(get(`${base}/metrics`)).rejects.toMatchObject({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
  });
  it('holds to minVersion: a TLS 1.2-only client is refused under TLSv1.3, served under the default', async () => {
    const strict = await start({ tls: { ...tls, minVersion: 'TLSv1.3' } });
    const lenient = await start({ tls });
    const agent = new Agent({ connect: { ca: tls.cert, maxVersion: 'TLSv1.2' } });
    try {
      await expect(get(`${strict}/healthz`, {}, agent)).rejects.toMatchObject({ code: 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION' });
      expect((await get(`${lenient}/healthz`, {}, agent)).status).toBe(200);
    } finally {
      await agent.close();
    }
  });
  it('client_auth request: a client without a certificate is served (the certificate protects nothing on its own)', async () => {
    const base = await start({ tls: { ...tls, clientAuth: 'request' } });
    await withAgent(async (agent) => {
      expect((await get(`${base}/metrics`, {}, agent)).status).toBe(200);
    });
  });
});

describe('acceptsGzip', () => {
  it.each([
    [undefined, false], ['gzip', true], ['deflate, gzip;q=0.5', true], ['gzip;q=0', false], ['identity', false], ['GZIP', true],
  ])('%j -> %s', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});
