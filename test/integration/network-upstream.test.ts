// The upstream reached as a company network reaches it: a real forward proxy
// (Debian's tinyproxy) and the simulator served over TLS with a certificate
// from a CA made here with openssl. A real Daemon (schedules off, one cycle
// per runOnce) is configured through loadConfig with the proxy variables in
// the environment it is given, or upstream.proxy_url. Every address is
// loopback: the proxy and the TLS front listen on 127.0.0.1, and the one
// host name that must not resolve fails in an injected lookup (below).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/engine/reports.js';
import { loadConfig } from '../../src/config/index.js';
import { type Env } from '../../src/config/env.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { lineSink } from '../support/capture.js';
import { freePort } from '../support/ports.js';
import { makeTestPki, type TestPki } from '../support/test-pki.js';
import { startTinyproxy, type Tinyproxy } from '../support/tinyproxy.js';
import { startTlsFront, type TlsFront } from '../support/tls-front.js';

const T0 = Date.UTC(2026, 2, 2, 4, 0, 0);
const TOKEN = 'sim-token';
const PROXY_USER = 'edge';
const PROXY_PASSWORD = 'pr0xy-S3cret-pass';

let dir: string;
let pki: TestPki;
let sim: Simulator;
let simPort: number;
let front: TlsFront;
let proxy: Tinyproxy;
let authProxy: Tinyproxy;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'edge-network-'));
  pki = makeTestPki(dir);
  sim = createSimulator({ clock: { mode: 'fixed', start: T0 }, domains: 2, tokens: [{ token: TOKEN, permissions: '*' }] });
  simPort = Number(new URL((await sim.listen('127.0.0.1', 0)).url).port);
  front = await startTlsFront({ cert: pki.serverCert, key: pki.serverKey, targetPort: simPort });
  proxy = await startTinyproxy(dir, { connectPorts: [front.port] });
  authProxy = await startTinyproxy(dir, { connectPorts: [front.port], basicAuth: { user: PROXY_USER, password: PROXY_PASSWORD } });
});

afterAll(async () => {
  await authProxy?.close();
  await proxy?.close();
  await front?.close();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  readonly reports: RunReport[];
  /** The daemon's log lines, parsed. */
  readonly log: Record<string, unknown>[];
  readonly logText: string;
  readonly landing: string;
}

let daemon: Daemon | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
});

function configText(upstream: readonly string[], stateDir: string): string {
  return [
    'upstream:',
    ...upstream.map((line) => `  ${line}`),
    `  token: ${TOKEN}`,
    '  timeout: 5s',
    '  retry: { attempts: 1 }',
    'log: { level: info }',
    'collectors:',
    '  defaults: { jitter: 0s }',
    ...['access', 'topn', 'cc_attack', 'waf_trend', 'inventory'].map((c) => `  ${c}: { enabled: false }`),
    '  usage: { interval: 1m }',
    'server: { listen: "127.0.0.1:0" }',
    `state_dir: ${JSON.stringify(stateDir)}`,
  ].join('\n');
}

interface Started {
  readonly url: string;
  readonly lines: string[];
  /** One cycle, then the log so far and the landing page. */
  cycle(): Promise<Run>;
}

/** A daemon with `upstream` (YAML lines under `upstream:`) and `env`, running only the usage collector; `reread` gives reload() its next config. */
async function startDaemon(upstream: readonly string[], env: Env = {}, options: { lookup?: LookupFunction; reread?: () => readonly string[] } = {}): Promise<Started> {
  const stateDir = mkdtempSync(join(dir, 'state-'));
  const config = loadConfig({ text: configText(upstream, stateDir), env });
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', destination: lineSink(lines), secrets: [TOKEN] });
  const { lookup, reread } = options;
  daemon = new Daemon({
    config, logger, version: '0.0.0-test', clock: { now: () => sim.clock.now() }, schedules: false,
    ...(lookup ? { lookup } : {}),
    ...(reread ? { reloadConfig: () => loadConfig({ text: configText(reread(), stateDir), env }) } : {}),
  });
  const running = daemon;
  const url = await running.start();
  return {
    url, lines,
    async cycle() {
      const reports = await running.runOnce();
      const landing = await (await fetch(`${url}/`, { signal: AbortSignal.timeout(5000) })).text();
      const logText = lines.join('');
      return { reports, log: lines.map((l) => JSON.parse(l) as Record<string, unknown>), logText, landing };
    },
  };
}

/** One daemon, one cycle of the usage collector: its reports, log and landing page. */
async function runOnce(upstream: readonly string[], env: Env = {}, lookup?: LookupFunction): Promise<Run> {
  return (await startDaemon(upstream, env, lookup ? { lookup } : {})).cycle();
}

const upstreamLine = (run: Run): Record<string, unknown> | undefined => run.log.find((l) => typeof l['msg'] === 'string' && (l['msg'] as string).startsWith('upstream: '));
const failures = (run: Run): Record<string, unknown>[] => run.log.filter((l) => l['code'] === 'EDGE_NETWORK');
const proxied = (p: Tinyproxy, port: number): string[] => p.requests().filter((r) => r.includes(`127.0.0.1:${port}`));

describe('through a forward proxy', () => {
  it('tunnels an https:// upstream with CONNECT and trusts it through upstream.tls.ca_file', async () => {
    const before = proxied(proxy, front.port).length;
    const run = await runOnce([`api_url: ${front.origin}`, `tls: { ca_file: ${JSON.stringify(pki.caFile)} }`], { HTTPS_PROXY: proxy.url });
    expect(run.reports.map((r) => [r.collector, r.ok, r.error?.code])).toEqual([['usage', true, undefined]]);
    const seen = proxied(proxy, front.port).slice(before);
    expect(seen.length).toBeGreaterThan(0);
    // Only CONNECT: the request itself went inside the tunnel, encrypted end to end.
    expect(seen.every((r) => r === `CONNECT 127.0.0.1:${front.port} HTTP/1.1`)).toBe(true);
    expect(upstreamLine(run)).toMatchObject({ apiUrl: front.origin, proxy: proxy.url, proxySource: 'environment' });
  });

  it('sends an http:// upstream to the proxy in absolute-form (lower-case http_proxy wins over HTTP_PROXY)', async () => {
    const before = proxied(proxy, simPort).length;
    const run = await runOnce([`api_url: http://127.0.0.1:${simPort}`], { http_proxy: proxy.url, HTTP_PROXY: 'http://127.0.0.1:9' });
    expect(run.reports.every((r) => r.ok)).toBe(true);
    const seen = proxied(proxy, simPort).slice(before);
    expect(seen.length).toBeGreaterThan(0);
    for (const line of seen) expect(line).toMatch(new RegExp(`^(GET|POST) http://127\\.0\\.0\\.1:${simPort}/\\S* HTTP/1\\.1$`));
  });

  it('reaches the proxy itself over TLS (an https:// proxy URL), verified with upstream.tls.ca_file, then tunnels with CONNECT', async () => {
    // tinyproxy speaks plain HTTP; a TLS front made with the test CA turns it into an https:// proxy.
    const tlsProxy = await startTlsFront({ cert: pki.serverCert, key: pki.serverKey, targetPort: proxy.port });
    try {
      const before = proxied(proxy, front.port).length;
      const run = await runOnce([`api_url: ${front.origin}`, `tls: { ca_file: ${JSON.stringify(pki.caFile)} }`], { HTTPS_PROXY: tlsProxy.origin });
      expect(run.reports.map((r) => [r.collector, r.ok, r.error?.code])).toEqual([['usage', true, undefined]]);
      expect(tlsProxy.handshakes).toBeGreaterThan(0);
      const seen = proxied(proxy, front.port).slice(before);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((r) => r === `CONNECT 127.0.0.1:${front.port} HTTP/1.1`)).toBe(true);
    } finally {
      await tlsProxy.close();
    }
  });

  it('goes direct to a host NO_PROXY lists: the proxy sees nothing', async () => {
    const before = proxy.requests().length;
    const run = await runOnce([`api_url: ${front.origin}`, `tls: { ca_file: ${JSON.stringify(pki.caFile)} }`], { HTTPS_PROXY: proxy.url, NO_PROXY: 'localhost,127.0.0.1' });
    expect(run.reports.every((r) => r.ok)).toBe(true);
    expect(proxy.requests().slice(before)).toEqual([]);
    expect(upstreamLine(run)).toMatchObject({ proxy: 'direct' });
  });

  it('uses upstream.proxy_url over the environment, and NO_PROXY does not apply to it', async () => {
    const before = proxied(proxy, front.port).length;
    const run = await runOnce(
      [`api_url: ${front.origin}`, `proxy_url: ${proxy.url}`, `tls: { ca_file: ${JSON.stringify(pki.caFile)} }`],
      { HTTPS_PROXY: 'http://127.0.0.1:9', NO_PROXY: '127.0.0.1' },
    );
    expect(run.reports.every((r) => r.ok)).toBe(true);
    expect(proxied(proxy, front.port).length).toBeGreaterThan(before);
    expect(upstreamLine(run)).toMatchObject({ proxySource: 'config' });
  });

  it('authenticates to a proxy with credentials from upstream.proxy_url_file, masked in the log', async () => {
    const file = join(dir, 'proxy-url');
    writeFileSync(file, `http://${PROXY_USER}:${PROXY_PASSWORD}@127.0.0.1:${authProxy.port}\n`);
    const run = await runOnce([`api_url: ${front.origin}`, `proxy_url_file: ${JSON.stringify(file)}`, `tls: { ca_file: ${JSON.stringify(pki.caFile)} }`]);
    expect(run.reports.every((r) => r.ok)).toBe(true);
    expect(proxied(authProxy, front.port).length).toBeGreaterThan(0);
    expect(upstreamLine(run)).toMatchObject({ proxy: `http://[REDACTED]@127.0.0.1:${authProxy.port}` });
    expect(run.logText).not.toContain(PROXY_PASSWORD);
  });

  it('reads upstream.proxy_url_file again on reload: requests go through the proxy it names from then on', async () => {
    const file = join(dir, 'proxy-url-reloaded');
    writeFileSync(file, proxy.url);
    const lines = [`api_url: ${front.origin}`, `proxy_url_file: ${JSON.stringify(file)}`, `tls: { ca_file: ${JSON.stringify(pki.caFile)} }`];
    const started = await startDaemon(lines, {}, { reread: () => lines });
    const plainBefore = proxied(proxy, front.port).length;
    expect((await started.cycle()).reports.every((r) => r.ok)).toBe(true);
    expect(proxied(proxy, front.port).length).toBeGreaterThan(plainBefore);
    writeFileSync(file, `http://${PROXY_USER}:${PROXY_PASSWORD}@127.0.0.1:${authProxy.port}`);
    await expect(daemon?.reload()).resolves.toEqual({ ok: true });
    const plainAfterReload = proxied(proxy, front.port).length;
    const authBefore = proxied(authProxy, front.port).length;
    const after = await started.cycle();
    expect(after.reports.every((r) => r.ok)).toBe(true);
    expect(proxied(authProxy, front.port).length).toBeGreaterThan(authBefore);
    expect(proxied(proxy, front.port).length).toBe(plainAfterReload);
    expect(after.logText).not.toContain(PROXY_PASSWORD);
  });

  it.each([
    // tinyproxy answers a request without credentials 407, one with wrong credentials 401.
    ['without credentials', `http://127.0.0.1:PORT`, 407, `http://127.0.0.1:PORT`],
    ['with wrong credentials', `http://${PROXY_USER}:not-the-${PROXY_PASSWORD}@127.0.0.1:PORT`, 401, 'http://[REDACTED]@127.0.0.1:PORT'],
  ])('names a proxy that refuses the request %s, masked, in the log and on the status page', async (_name, template, status, maskedTemplate) => {
    const port = String(authProxy.port);
    const run = await runOnce([`api_url: ${front.origin}`, `tls: { ca_file: ${JSON.stringify(pki.caFile)} }`], { HTTPS_PROXY: template.replace('PORT', port) });
    expect(run.reports.map((r) => r.ok)).toEqual([false]);
    const masked = maskedTemplate.replace('PORT', port);
    expect(failures(run)[0]).toMatchObject({ reason: 'PROXY_REFUSED', proxyStatus: status, proxy: masked, hint: expect.stringContaining('proxy wants (other) credentials') });
    expect(run.landing).toContain(`via proxy ${masked}`);
    for (const text of [run.logText, run.landing]) {
      expect(text).not.toContain(PROXY_PASSWORD);
      expect(text).not.toContain(Buffer.from(`${PROXY_USER}:not-the-${PROXY_PASSWORD}`).toString('base64'));
    }
  });
});

describe('network failures point at the cause', () => {
  it('a refused connection: the address, ECONNREFUSED and the hint, logged and on the status page', async () => {
    const closed = await freePort();
    const run = await runOnce([`api_url: http://127.0.0.1:${closed}`]);
    const failure = failures(run)[0];
    expect(failure).toMatchObject({ address: `127.0.0.1:${closed}`, reason: 'ECONNREFUSED', hint: expect.stringContaining('upstream.api_url') });
    expect(run.reports[0]?.error?.message).toContain(`cannot reach 127.0.0.1:${closed} (ECONNREFUSED)`);
    expect(run.landing).toContain(`cannot reach 127.0.0.1:${closed} (ECONNREFUSED)`);
  });

  it('an unknown host: the host, ENOTFOUND and the DNS-or-proxy hint', async () => {
    // The name must fail to resolve without asking a DNS server (this machine's resolver is not on loopback):
    // the dispatcher's lookup is replaced by one that fails exactly as node's dns.lookup does for a name that does not exist.
    const lookup: LookupFunction = (hostname, _options, callback) => {
      const error: NodeJS.ErrnoException & { hostname?: string } = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
        errno: -3008, code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname,
      });
      callback(error, '', 4);
    };
    const run = await runOnce(['api_url: https://edge-api.invalid'], {}, lookup);
    expect(failures(run)[0]).toMatchObject({
      address: 'edge-api.invalid:443', reason: 'ENOTFOUND', hint: expect.stringContaining('HTTPS_PROXY / upstream.proxy_url'),
    });
    expect(run.landing).toContain('cannot reach edge-api.invalid:443 (ENOTFOUND)');
  });

  it('an untrusted certificate: the address, the TLS reason and upstream.tls.ca_file', async () => {
    const run = await runOnce([`api_url: ${front.origin}`]);
    expect(failures(run)[0]).toMatchObject({
      address: `127.0.0.1:${front.port}`, reason: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', hint: expect.stringContaining('upstream.tls.ca_file'),
    });
    expect(run.landing).toContain(`cannot reach 127.0.0.1:${front.port} (UNABLE_TO_VERIFY_LEAF_SIGNATURE)`);
  });

  it('the same untrusted certificate through the proxy names the proxy too', async () => {
    const run = await runOnce([`api_url: ${front.origin}`], { HTTPS_PROXY: proxy.url });
    expect(failures(run)[0]).toMatchObject({ reason: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', proxy: proxy.url });
  });
});

describe('upstream.tls', () => {
  it('presents cert_file + key_file to an upstream that demands a client certificate', async () => {
    const mtls = await startTlsFront({ cert: pki.serverCert, key: pki.serverKey, targetPort: simPort, clientCa: pki.ca });
    try {
      const tls = `tls: { ca_file: ${JSON.stringify(pki.caFile)}, cert_file: ${JSON.stringify(pki.clientCertFile)}, key_file: ${JSON.stringify(pki.clientKeyFile)} }`;
      const run = await runOnce([`api_url: ${mtls.origin}`, tls]);
      expect(run.reports.every((r) => r.ok)).toBe(true);
      expect(new Set(mtls.clientSubjects)).toEqual(new Set(['edge-exporter']));
    } finally {
      await mtls.close();
    }
  });

  it('server_name checks the certificate against that name instead of the URL\'s host', async () => {
    const run = await runOnce([`api_url: ${front.origin}`, `tls: { ca_file: ${JSON.stringify(pki.caFile)}, server_name: edge-api.test }`]);
    expect(run.reports.every((r) => r.ok)).toBe(true);
  });

  it('a certificate that does not carry server_name: ERR_TLS_CERT_ALTNAME_INVALID and the server_name hint', async () => {
    const run = await runOnce([`api_url: ${front.origin}`, `tls: { ca_file: ${JSON.stringify(pki.caFile)}, server_name: other.test }`]);
    expect(failures(run)[0]).toMatchObject({ reason: 'ERR_TLS_CERT_ALTNAME_INVALID', hint: expect.stringContaining('upstream.tls.server_name') });
  });

  it('insecure_skip_verify: true connects to the untrusted upstream, warning in the log and on the status page', async () => {
    const run = await runOnce([`api_url: ${front.origin}`, 'tls: { insecure_skip_verify: true }']);
    expect(run.reports.every((r) => r.ok)).toBe(true);
    expect(run.log.filter((l) => l['level'] === 'warn' && l['key'] === 'upstream.tls.insecure_skip_verify')).toHaveLength(1);
    expect(run.landing).toContain('upstream.tls.insecure_skip_verify is true: certificates are not verified');
  });

  it('reads ca_file again on reload: a CA added to the file is trusted from the reload on', async () => {
    const caFile = join(dir, 'reloaded-ca.pem');
    // Another CA's certificate first: the test CA is not in it, so the upstream is untrusted.
    const other = makeTestPki(mkdtempSync(join(dir, 'other-')));
    writeFileSync(caFile, other.ca);
    const lines = [`api_url: ${front.origin}`, `tls: { ca_file: ${JSON.stringify(caFile)} }`];
    const started = await startDaemon(lines, {}, { reread: () => lines });
    const before = await started.cycle();
    expect(before.reports[0]?.error?.message).toContain('(UNABLE_TO_VERIFY_LEAF_SIGNATURE)');
    writeFileSync(caFile, Buffer.concat([other.ca, pki.ca]));
    await expect(daemon?.reload()).resolves.toEqual({ ok: true });
    const after = await started.cycle();
    expect(after.reports.map((r) => [r.ok, r.error?.code])).toEqual([[true, undefined]]);
  });

  it('a ca_file that cannot be read stops start-up, naming the key and the file', async () => {
    const missing = join(dir, 'absent-ca.pem');
    await expect(startDaemon([`api_url: ${front.origin}`, `tls: { ca_file: ${JSON.stringify(missing)} }`]))
      .rejects.toMatchObject({ code: 'EDGE_STARTUP', message: `cannot read upstream.tls.ca_file ${missing}: no such file or directory (ENOENT)` });
  });

  it('a reload naming a ca_file that cannot be read is refused, naming it, and the daemon runs on', async () => {
    const missing = join(dir, 'no-such-ca.pem');
    let lines = [`api_url: ${front.origin}`, `tls: { ca_file: ${JSON.stringify(pki.caFile)} }`];
    const started = await startDaemon(lines, {}, { reread: () => lines });
    lines = [`api_url: ${front.origin}`, `tls: { ca_file: ${JSON.stringify(missing)} }`];
    const outcome = await daemon?.reload();
    expect(outcome).toEqual({ ok: false, message: `cannot read upstream.tls.ca_file ${missing}: no such file or directory (ENOENT)` });
    const after = await started.cycle();
    expect(after.reports.map((r) => r.ok)).toEqual([true]);
  });
});
