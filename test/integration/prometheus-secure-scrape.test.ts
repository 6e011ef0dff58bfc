// A real Prometheus (Debian's binary, loopback only) scraping the daemon over
// HTTPS the way company networks secure it: a client certificate under
// require_and_verify and a bcrypt-hashed basic-auth password, configured once
// through the `server:` section and once through exporter-toolkit's web config
// file (`run --web.config.file`, relative paths in it). Each daemon is
// scraped by jobs that differ in one thing: with the right certificate and
// password (up), without a certificate, with one from another CA, with a
// wrong password (all down, each for its own reason).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { loadConfig } from '../../src/config/index.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/log/logger.js';
import { startPrometheus, type RunningPrometheus, type TargetState } from '../exporters/prometheus/prometheus-server.js';
import { Capture } from '../support/capture.js';
import { makeCa, type CertPair, type TestCa } from '../support/scrape-certs.js';

const PASSWORD = 'scrape-secret-4f1d';
/** htpasswd writes $2y$; bcryptjs writes $2b$: the same algorithm, so the file an operator already has is what is tested. */
const HASH = bcrypt.hashSync(PASSWORD, 8).replace(/^\$2b\$/, '$2y$');
const NO_COLLECTORS = 'collectors: { access: { enabled: false }, usage: { enabled: false }, topn: { enabled: false }, cc_attack: { enabled: false }, waf_trend: { enabled: false }, inventory: { enabled: false } }';

let dir: string;
let ca: TestCa;
let client: CertPair;
let rogue: CertPair;
let daemon: Daemon | undefined;
const cli = { controller: new AbortController(), running: undefined as Promise<number> | undefined, stdout: new Capture() };
let prometheus: RunningPrometheus | undefined;
let targets: Map<string, TargetState>;
let urls: { section: string; webConfig: string };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'edge-secure-scrape-'));
  ca = makeCa(dir, 'scrapers');
  const server = ca.issue('server', 'server');
  client = ca.issue('prometheus', 'client');
  rogue = makeCa(dir, 'rogue').issue('intruder', 'client');
  const common = (name: string) => [
    'upstream: { api_url: "http://127.0.0.1:9", token: t-123456 }',
    `state_dir: ${join(dir, name, 'state')}`,
    NO_COLLECTORS,
  ];

  // Through the `server:` section.
  const sectionFile = join(dir, 'section.yaml');
  writeFileSync(sectionFile, [...common('section'),
    `server: { listen: "127.0.0.1:0", tls: { cert_file: ${server.cert}, key_file: ${server.key}, client_ca_file: ${ca.cert}, client_auth: require_and_verify },`,
    `  basic_auth: { username: prom, password_hash: "${HASH}" } }`].join('\n'));
  daemon = new Daemon({ config: loadConfig({ file: sectionFile, env: {}, serverFiles: true }), logger: createLogger({ level: 'warn', destination: new Capture() }), version: 'test', schedules: false });
  const sectionUrl = await daemon.start();

  // Through the CLI with a web config file whose paths are relative to it.
  writeFileSync(join(dir, 'web-config.yml'), [
    'tls_server_config:',
    '  cert_file: server.pem',
    '  key_file: server-key.pem',
    '  client_ca_file: scrapers-ca.pem',
    '  client_auth_type: RequireAndVerifyClientCert',
    'basic_auth_users:',
    `  prom: "${HASH}"`,
  ].join('\n'));
  writeFileSync(join(dir, 'cli.yaml'), [...common('cli'), 'server: { listen: "127.0.0.1:0" }'].join('\n'));
  cli.running = main(['run', '--config', join(dir, 'cli.yaml'), '--web.config.file', join(dir, 'web-config.yml')],
    { stdout: cli.stdout, stderr: new Capture(), env: {} }, cli.controller.signal);
  await vi.waitFor(() => expect(cli.stdout.text).toMatch(/serving metrics/), { timeout: 10_000, interval: 50 });
  const served = /"url":"(https:\/\/[^"]+)\/metrics"/.exec(cli.stdout.text)?.[1] ?? '';
  urls = { section: sectionUrl, webConfig: served };

  const jobs = Object.entries(urls).flatMap(([via, url]) => {
    const target = url.replace(/^https:\/\//, '');
    const job = (name: string, tls: string, password: string) => ({
      name: `${via}-${name}`, target, path: '/metrics',
      settings: `scheme: https, tls_config: { ca_file: ${ca.cert}${tls} }, basic_auth: { username: prom, password: "${password}" }`,
    });
    return [
      job('cert', `, cert_file: ${client.cert}, key_file: ${client.key}`, PASSWORD),
      job('no-cert', '', PASSWORD),
      job('rogue-cert', `, cert_file: ${rogue.cert}, key_file: ${rogue.key}`, PASSWORD),
      job('wrong-password', `, cert_file: ${client.cert}, key_file: ${client.key}`, 'not-the-password'),
    ];
  });
  prometheus = await startPrometheus(jobs);
  targets = new Map((await prometheus.waitForScrapes(20_000)).map((t) => [t.job, t]));
}, 40_000);

afterAll(async () => {
  await prometheus?.stop();
  await daemon?.stop();
  cli.controller.abort();
  await cli.running;
  rmSync(dir, { recursive: true, force: true });
});

describe.each(['section', 'webConfig'])('Prometheus scraping a daemon secured through %s', (via) => {
  it('is up with a client certificate the CA signed and the password whose bcrypt hash is configured', () => {
    expect(targets.get(`${via}-cert`)).toEqual({ job: `${via}-cert`, health: 'up', lastError: '' });
  });

  it('is down without a client certificate: the TLS handshake is refused', () => {
    const target = targets.get(`${via}-no-cert`);
    expect(target?.health).toBe('down');
    expect(target?.lastError).toMatch(/remote error: tls: certificate required$/);
  });

  it('is down with a client certificate from another CA', () => {
    const target = targets.get(`${via}-rogue-cert`);
    expect(target?.health).toBe('down');
    // Node checks the chain once the TLS 1.3 handshake is done and then drops the connection, before any HTTP is read:
    // Go reads a reset or an end of stream, depending on which arrives first, or, when the close arrives before Go has
    // written the request (a loaded machine), reports it as the server closing an idle connection.
    expect(target?.lastError).toMatch(/: read: connection reset by peer$|": EOF$|": http: server closed idle connection$/);
  });

  it('is down with the right certificate but a wrong password: 401', () => {
    const target = targets.get(`${via}-wrong-password`);
    expect(target?.health).toBe('down');
    expect(target?.lastError).toBe('server returned HTTP status 401 Unauthorized');
  });

  it('needs the client certificate for the probes too, but no password', async () => {
    const url = urls[via as keyof typeof urls];
    expect(await probe(`${url}/healthz`, client)).toBe(200);
    await expect(probe(`${url}/healthz`)).rejects.toThrow();
  });
});

describe('the daemon run with --web.config.file', () => {
  it('never logs the bcrypt hash or the password', () => {
    expect(cli.stdout.text).toMatch(/serving metrics/);
    expect(cli.stdout.text).not.toContain(HASH.slice(7));
    expect(cli.stdout.text).not.toContain(PASSWORD);
  });
});

/** GET with the test CA trusted and, when given, a client certificate; resolves to the status. */
function probe(url: string, cert?: CertPair): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca: readPem(ca.cert), ...(cert ? { cert: readPem(cert.cert), key: readPem(cert.key) } : {}), agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

const readPem = (file: string): Buffer => readFileSync(file);
