// Reload as the HTTP side and the operator meet it, in process: POST
// /-/reload gated by server.enable_reload (and basic auth), a key only a
// restart applies refused by name, and the basic-auth password file, the
// TLS certificate and the client CA re-read (a rotated password, a renewed
// certificate, a new scrapers' CA), from `server:` or `--web.config.file`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { Capture } from '../support/capture.js';
import { makeCa, type CertPair } from '../support/scrape-certs.js';

const TOKEN = 'reload-server-token-7a1';
let sim: Simulator;
let apiUrl: string;
let dir: string;
let daemon: Daemon | undefined;

beforeAll(async () => {
  sim = createSimulator({ clock: { mode: 'fixed', start: '2026-03-02 12:00:00' }, domains: 2, tokens: [{ token: TOKEN, permissions: '*' }] });
  ({ url: apiUrl } = await sim.listen('127.0.0.1', 0));
  dir = mkdtempSync(join(tmpdir(), 'edge-reload-server-'));
});
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A daemon whose reload re-reads `file` (and `webConfigFile`); the text it starts with is `file`'s content. */
async function start(name: string, text: string, webConfigFile?: string): Promise<{ url: string; file: string; log: Capture }> {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, text);
  const log = new Capture();
  const load = () => loadConfig({ file, env: {}, serverFiles: true, ...(webConfigFile ? { webConfigFile } : {}) });
  daemon = new Daemon({ config: load(), logger: createLogger({ level: 'info', destination: log }), version: 'test', reloadConfig: load });
  return { url: await daemon.start(), file, log };
}

const base = (name: string, server: string): string => [
  `upstream: { api_url: "${apiUrl}", token: "${TOKEN}", timeout: 2s, retry: { attempts: 1 } }`,
  `state_dir: ${join(dir, name, 'state')}`,
  `server: ${server}`,
  'collectors: { access: { interval: 1m }, usage: { enabled: false }, topn: { enabled: false }, cc_attack: { enabled: false }, waf_trend: { enabled: false }, inventory: { enabled: false } }',
].join('\n');

const reloadGauge = async (url: string, auth?: string): Promise<string | undefined> => {
  const text = await (await fetch(`${url}/metrics`, auth ? { headers: { authorization: auth } } : {})).text();
  return /^edge_exporter_config_last_reload_successful (\d)$/m.exec(text)?.[1];
};

describe('POST /-/reload', () => {
  it('is refused with 403 while server.enable_reload is off, and only POST or PUT are accepted', async () => {
    const { url } = await start('gated', base('gated', '{ listen: "127.0.0.1:0" }'));
    expect((await fetch(`${url}/-/reload`, { method: 'POST' })).status).toBe(403);
    expect(await (await fetch(`${url}/-/reload`, { method: 'POST' })).text()).toMatch(/server\.enable_reload: true, or send SIGHUP/);
    // A reload through the daemon (SIGHUP's path) turns the endpoint on.
    writeFileSync(join(dir, 'gated.yaml'), base('gated', '{ listen: "127.0.0.1:0", enable_reload: true }'));
    expect(await daemon!.reload()).toEqual({ ok: true });
    const get = await fetch(`${url}/-/reload`);
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST, PUT']);
    expect((await fetch(`${url}/-/reload`, { method: 'PUT' })).status).toBe(200);
  });

  it('refuses a change only a restart applies, naming the key, and keeps serving on the old config', async () => {
    const { url, file, log } = await start('fixed', base('fixed', '{ listen: "127.0.0.1:0", enable_reload: true }'));
    writeFileSync(file, base('fixed', '{ listen: "127.0.0.1:0", enable_reload: true }').replace(join(dir, 'fixed', 'state'), join(dir, 'elsewhere')));
    const answer = await fetch(`${url}/-/reload`, { method: 'POST' });
    expect(answer.status).toBe(500);
    expect(await answer.text()).toBe('reload refused, still running on the previous configuration: state_dir: changed; it is applied only by a restart\n');
    expect(log.text).toMatch(/"reason":"state_dir: changed; it is applied only by a restart","msg":"reload refused; still running on the previous configuration"/);
    expect(await reloadGauge(url)).toBe('0');
    expect(daemon!.running.state_dir).toBe(join(dir, 'fixed', 'state'));
  });
});

describe('the server\'s files, re-read by a reload', () => {
  it('a rotated basic-auth password file: the old password is refused, the new one accepted', async () => {
    const passwordFile = join(dir, 'password');
    writeFileSync(passwordFile, 'first-password-91\n');
    const { url } = await start('auth', base('auth', `{ listen: "127.0.0.1:0", enable_reload: true, basic_auth: { username: prom, password_file: ${passwordFile} } }`));
    const basic = (password: string) => `Basic ${Buffer.from(`prom:${password}`).toString('base64')}`;
    expect(await reloadGauge(url, basic('first-password-91'))).toBe('1');
    // The reload endpoint is behind the same credentials.
    expect((await fetch(`${url}/-/reload`, { method: 'POST' })).status).toBe(401);
    writeFileSync(passwordFile, 'second-password-27\n');
    expect((await fetch(`${url}/-/reload`, { method: 'POST', headers: { authorization: basic('first-password-91') } })).status).toBe(200);
    expect((await fetch(`${url}/metrics`, { headers: { authorization: basic('first-password-91') } })).status).toBe(401);
    expect(await reloadGauge(url, basic('second-password-27'))).toBe('1');
  });

  it('a renewed TLS certificate: new connections are served the new one', async () => {
    const tls = join(dir, 'tls');
    const issue = (cn: string) => execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', `/CN=${cn}`, '-keyout', `${tls}-key.pem`, '-out', `${tls}-cert.pem`], { stdio: 'ignore' });
    issue('first.example');
    const { url } = await start('tls', base('tls', `{ listen: "127.0.0.1:0", tls: { cert_file: ${tls}-cert.pem, key_file: ${tls}-key.pem } }`));
    const served = (): Promise<string> => new Promise((resolve, reject) => {
      const req = request(`${url}/healthz`, { rejectUnauthorized: false, agent: false }, (res) => {
        const cert = (res.socket as TLSSocket).getPeerX509Certificate();
        res.resume();
        resolve(cert?.subject ?? '');
      });
      req.on('error', reject);
      req.end();
    });
    expect(await served()).toBe('CN=first.example');
    issue('renewed.example');
    expect(new X509Certificate(readFileSync(`${tls}-cert.pem`)).subject).toBe('CN=renewed.example');
    expect(await daemon!.reload()).toEqual({ ok: true });
    expect(await served()).toBe('CN=renewed.example');
    // Turning TLS off needs a new listener: refused by name.
    writeFileSync(join(dir, 'tls.yaml'), base('tls', '{ listen: "127.0.0.1:0" }'));
    expect(await daemon!.reload()).toEqual({ ok: false, message: 'server.tls: turning TLS on or off needs a restart (a reload re-reads the certificate and key files)' });
  });
});

describe('upstream.token_file, re-read by a reload', () => {
  it('a rotated token is used from the reload on: no request is refused', async () => {
    const tokenFile = join(dir, 'token.txt');
    writeFileSync(tokenFile, `${TOKEN}\n`);
    const text = base('token', '{ listen: "127.0.0.1:0" }').replace(`token: "${TOKEN}"`, `token_file: ${tokenFile}`);
    const { url, log } = await start('token', text);
    const requests = async (outcome: string): Promise<number> => {
      const metrics = await (await fetch(`${url}/metrics`)).text();
      return [...metrics.matchAll(new RegExp(`^edge_exporter_upstream_requests_total\\{operation="[^"]+",outcome="${outcome}"\\} (\\d+)$`, 'gm'))]
        .reduce((sum, m) => sum + Number(m[1]), 0);
    };
    await expect.poll(() => requests('success'), { timeout: 10_000 }).toBeGreaterThan(0);
    const rotated = 'rotated-token-55e0c2';
    sim.setTokens([{ token: rotated, permissions: '*' }]);
    writeFileSync(tokenFile, `${rotated}\n`);
    const before = await requests('success');
    expect(await daemon!.reload()).toEqual({ ok: true });
    // The reload's engine runs the access collector at once, with the token read from the file again.
    await expect.poll(() => requests('success'), { timeout: 10_000 }).toBeGreaterThan(before);
    expect(await requests('EDGE_AUTH')).toBe(0);
    expect(log.text).not.toContain(rotated);
    expect(log.text).not.toContain(TOKEN);
    sim.setTokens([{ token: TOKEN, permissions: '*' }]);
  });
});

/** GET over HTTPS trusting `ca`, presenting `cert` when given; the status, or the connection's error code. */
function mtlsGet(url: string, ca: string, cert?: CertPair, authorization?: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(url, {
      ca: readFileSync(ca), agent: false,
      ...(cert ? { cert: readFileSync(cert.cert), key: readFileSync(cert.key) } : {}),
      ...(authorization ? { headers: { authorization } } : {}),
    }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
    req.end();
  });
}

describe('client certificates and bcrypt users, re-read by a reload', () => {
  it('a new scrapers\' CA in server.tls.client_ca_file: certificates of the old one are refused from the reload on', async () => {
    const tlsDir = join(dir, 'mtls');
    rmSync(tlsDir, { recursive: true, force: true });
    mkdirSync(tlsDir, { recursive: true });
    const serverCa = makeCa(tlsDir, 'server');
    const server = serverCa.issue('server', 'server');
    const [first, second] = [makeCa(tlsDir, 'first'), makeCa(tlsDir, 'second')];
    const [firstClient, secondClient] = [first.issue('first-client', 'client'), second.issue('second-client', 'client')];
    const clientCa = join(tlsDir, 'client-ca.pem');
    writeFileSync(clientCa, readFileSync(first.cert));
    const tls = `tls: { cert_file: ${server.cert}, key_file: ${server.key}, client_ca_file: ${clientCa}, client_auth: require_and_verify }`;
    const { url, file } = await start('mtls', base('mtls', `{ listen: "127.0.0.1:0", ${tls} }`));
    expect(await mtlsGet(`${url}/healthz`, serverCa.cert, firstClient)).toBe(200);
    expect(await mtlsGet(`${url}/healthz`, serverCa.cert, secondClient)).toBe('ECONNRESET');
    writeFileSync(clientCa, readFileSync(second.cert));
    expect(await daemon!.reload()).toEqual({ ok: true });
    expect(await mtlsGet(`${url}/healthz`, serverCa.cert, secondClient)).toBe(200);
    expect(await mtlsGet(`${url}/healthz`, serverCa.cert, firstClient)).toBe('ECONNRESET');
    // Node fixes the client certificate mode per listener: changing it is refused by name.
    writeFileSync(file, base('mtls', `{ listen: "127.0.0.1:0", ${tls.replace('require_and_verify', 'request')} }`));
    expect(await daemon!.reload()).toEqual({ ok: false, message: 'server.tls.client_auth: changing the client certificate mode needs a restart (a reload re-reads the client CA file)' });
  });

  it('--web.config.file: a new bcrypt hash applies; turning its TLS off is refused', async () => {
    const webDir = join(dir, 'web');
    rmSync(webDir, { recursive: true, force: true });
    mkdirSync(webDir, { recursive: true });
    const ca = makeCa(webDir, 'web');
    ca.issue('server', 'server');
    const webFile = join(webDir, 'web-config.yml');
    const webConfig = (password: string, tls = true) => writeFileSync(webFile, [
      ...(tls ? ['tls_server_config: { cert_file: server.pem, key_file: server-key.pem }'] : []),
      `basic_auth_users: { prom: "${bcrypt.hashSync(password, 4)}" }`,
    ].join('\n'));
    webConfig('first-web-password');
    const { url, log } = await start('web', base('web', '{ listen: "127.0.0.1:0" }'), webFile);
    const basic = (password: string) => `Basic ${Buffer.from(`prom:${password}`).toString('base64')}`;
    expect(await mtlsGet(`${url}/metrics`, ca.cert, undefined, basic('first-web-password'))).toBe(200);
    webConfig('second-web-password');
    expect(await daemon!.reload()).toEqual({ ok: true });
    expect(await mtlsGet(`${url}/metrics`, ca.cert, undefined, basic('first-web-password'))).toBe(401);
    expect(await mtlsGet(`${url}/metrics`, ca.cert, undefined, basic('second-web-password'))).toBe(200);
    webConfig('second-web-password', false);
    expect(await daemon!.reload()).toEqual({ ok: false, message: 'server.tls: turning TLS on or off needs a restart (a reload re-reads the certificate and key files)' });
    expect(log.text).not.toMatch(/\$2[aby]\$/);
  });
});
