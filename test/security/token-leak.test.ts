// The secrets (API token, basic-auth password, OTLP header) never show in
// anything the daemon prints or serves, while every error path runs: the real
// CLI daemon polls the simulator (injecting 401, 403, 5xx, malformed,
// truncated, null-data and hanging answers) through a proxy that turns
// hostile, echoing the Authorization header back in the envelope msg, in a
// plain error body and in a response header. Everything the child printed and
// every page it served is grepped; the faults are checked to have happened,
// so the test cannot pass by seeing no errors at all.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Agent, request, type Dispatcher } from 'undici';
import type { FaultRule } from '../../src/simulator/faults.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';
import { startHostileUpstream, type EchoRule, type HostileUpstream } from '../support/hostile-upstream.js';
import { OTLP_KEY, PASSWORD, TOKEN, USERNAME, leaks } from './canaries.js';
import { kill, servingUrl, startCli, type CliProcess } from './cli-process.js';

const EVIL_LABEL = 'evil "pkg" \\ <b>&</b>\nnext';
/** How the landing page shows the echoed text: escaped, with the secrets masked. */
const ECHO_ON_PAGE = '&#60;script&#62;alert(&#34;pwned&#34;)&#60;/script&#62; &#38; &#39;denied&#39;\nAuthorization: [REDACTED] (token [REDACTED])';

let sim: Simulator;
let proxy: HostileUpstream;
let receiver: OtlpReceiver;
let dir: string;
let tls: { cert: string; key: string; ca: Buffer };
let daemon: CliProcess | undefined;

beforeAll(async () => {
  sim = createSimulator({ domains: 8, wafIngestLagMs: 1_000, tokens: [{ token: TOKEN, permissions: '*' }] });
  const { url } = await sim.listen('127.0.0.1', 0);
  proxy = await startHostileUpstream(url);
  receiver = await startOtlpReceiver();
  dir = mkdtempSync(join(tmpdir(), 'edge-leak-'));
  writeFileSync(join(dir, 'token'), `${TOKEN}\n`);
  writeFileSync(join(dir, 'password'), `${PASSWORD}\n`);
  tls = { cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem'), ca: Buffer.alloc(0) };
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', tls.key, '-out', tls.cert], { stdio: 'ignore' });
  tls.ca = readFileSync(tls.cert);
});

afterEach(async () => {
  await kill(daemon);
  daemon = undefined;
  sim.faults.clear();
  proxy.setEcho([]);
  proxy.setRewrite('getPackages', undefined);
  receiver.setStatus(200);
  receiver.reset();
});

afterAll(async () => {
  await proxy?.close();
  await receiver?.close();
  await sim?.close();
});

interface Run {
  readonly name: string;
  /** `upstream:` keys giving the token, beside api_url. */
  readonly tokenKeys: string;
  readonly env: Record<string, string>;
  readonly tls: boolean;
  readonly otlpHeader: readonly [string, string];
  readonly faults: FaultRule[];
  readonly echo: EchoRule[];
  /** Collector -> the error code its failed run must show on the landing page, or `success` (partial failures allowed). */
  readonly expected: Record<string, string>;
  /** Error codes the log must show (partial failures, the hang's timeout) before the pages are read. */
  readonly logged: string[];
}

function writeConfig(run: Run): string {
  const file = join(dir, `${run.name}.yaml`);
  writeFileSync(file, [
    `upstream: { api_url: "${proxy.url}", ${run.tokenKeys}timeout: 1s, retry: { attempts: 1 } }`,
    `state_dir: ${join(dir, `${run.name}-state`)}`,
    'server:',
    '  listen: "127.0.0.1:0"',
    `  basic_auth: { username: ${USERNAME}, password_file: "${join(dir, 'password')}" }`,
    ...(run.tls ? [`  tls: { cert_file: "${tls.cert}", key_file: "${tls.key}" }`] : []),
    'log: { level: debug }',
    'collectors: { defaults: { jitter: 0s, max_backfill: 1h } }',
    'waf_events: { enabled: true, interval: 1s, delay: 3s, overlap: 10s, max_window: 1m, start_from: 5m, page_size: 50 }',
    `otlp: { endpoint: "${receiver.url}", timeout: 1500ms, headers: { ${run.otlpHeader[0]}: "${run.otlpHeader[1]}" } }`,
  ].join('\n'));
  return file;
}

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

async function fetchText(url: string, headers: Record<string, string>, dispatcher: Dispatcher | undefined): Promise<{ status: number; text: string }> {
  const res = await request(url, { headers, ...(dispatcher ? { dispatcher } : {}) });
  let body = Buffer.from(await res.body.arrayBuffer());
  if (res.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
  // Headers too: a secret could hide in one (WWW-Authenticate, an echoed header).
  return { status: res.statusCode, text: `${res.statusCode}\n${JSON.stringify(res.headers)}\n${body.toString('utf8')}` };
}

/** Every page the daemon serves, authenticated or not, in each format. */
async function scrape(base: string, dispatcher: Dispatcher | undefined): Promise<Map<string, string>> {
  const auth = { authorization: basic(USERNAME, PASSWORD) };
  const pages: Array<[string, string, Record<string, string>]> = [
    ['landing', '/', auth],
    ['metrics text', '/metrics', auth],
    ['metrics openmetrics', '/metrics', { ...auth, accept: 'application/openmetrics-text; version=1.0.0' }],
    ['metrics gzip', '/metrics', { ...auth, 'accept-encoding': 'gzip' }],
    ['metrics openmetrics gzip', '/metrics', { ...auth, accept: 'application/openmetrics-text', 'accept-encoding': 'gzip' }],
    ['healthz', '/healthz', {}],
    ['readyz', '/readyz', {}],
    ['landing without credentials', '/', {}],
    ['metrics without credentials', '/metrics', {}],
    ['metrics with a wrong password', '/metrics', { authorization: basic(USERNAME, `${PASSWORD}x`) }],
    ['metrics with the token as bearer', '/metrics', { authorization: `Bearer ${TOKEN}` }],
    ['not found', '/nope', auth],
  ];
  const out = new Map<string, string>();
  for (const [name, path, headers] of pages) out.set(name, (await fetchText(`${base}${path}`, headers, dispatcher)).text);
  return out;
}

async function landing(base: string, dispatcher: Dispatcher | undefined): Promise<string> {
  return (await fetchText(`${base}/`, { authorization: basic(USERNAME, PASSWORD) }, dispatcher)).text;
}

/** The landing page's row of one collector. */
const row = (html: string, collector: string): string => new RegExp(`<tr id="job-${collector}">.*?</tr>`, 's').exec(html)?.[0] ?? '';

async function faultedRun(run: Run): Promise<Map<string, string>> {
  sim.faults.set(run.faults);
  proxy.setEcho(run.echo);
  // A label with markup, quotes, a backslash and a newline, as an upstream may send.
  proxy.setRewrite('getPackages', (json) => {
    const data = json.data as Array<{ label: string }>;
    if (data[0]) data[0].label = EVIL_LABEL;
    return json;
  });
  daemon = startCli(['run', '--config', writeConfig(run)], run.env);
  const current = daemon;
  await expect.poll(() => servingUrl(current.stdout()), { timeout: 30_000, interval: 100 }).toBeDefined();
  const base = servingUrl(current.stdout())!;
  expect(base.startsWith(run.tls ? 'https://' : 'http://')).toBe(true);
  const agent = run.tls ? new Agent({ connect: { ca: tls.ca } }) : undefined;
  try {
    // Every faulted collector has failed once, with the expected code on the landing page.
    for (const [collector, code] of Object.entries(run.expected)) {
      const cells = code === 'success' ? /<span class="success">success<\/span>/ : new RegExp(`<span class="error">error</span>.*<code>${code}</code> `, 's');
      await expect.poll(async () => row(await landing(base, agent), collector), { timeout: 30_000, interval: 250 }).toMatch(cells);
    }
    for (const code of run.logged) {
      await expect.poll(() => current.stdout(), { timeout: 30_000, interval: 250 }).toContain(`"code":"${code}"`);
    }
    // WAF events reached the receiver, carrying the OTLP header secret.
    await expect.poll(() => receiver.requests().length, { timeout: 30_000, interval: 250 }).toBeGreaterThan(0);
    expect(receiver.requests()[0]?.headers[run.otlpHeader[0]]).toBe(run.otlpHeader[1]);
    const served = await scrape(base, agent);
    current.child.kill('SIGTERM');
    expect(await current.exited).toBe(0);
    served.set('stdout', current.stdout());
    served.set('stderr', current.stderr());
    return new Map([...served].map(([source, text]) => [`${run.name} ${source}`, text]));
  } finally {
    await agent?.close();
  }
}

describe('a faulted daemon run never shows a secret', () => {
  it('token from token_file, plain HTTP: 401 echo, 403, 503, malformed, null data, truncated, hang', async () => {
    receiver.setStatus(401);
    const out = await faultedRun({
      name: 'file',
      tokenKeys: `token_file: "${join(dir, 'token')}", `,
      env: {},
      tls: false,
      otlpHeader: ['x-api-key', OTLP_KEY],
      faults: [
        { forbidden: true, operations: ['describeL7UsageData'] },
        { status5xx: 503, operations: ['describeL7MostData'] },
        { malformedJson: true, operations: ['describeL7CCAttack'] },
        { dataNull: true, operations: ['listLayer4Packages'] },
        { truncatedBody: true, operations: ['getCacheRecordList'] },
        { hang: true, operations: ['describeHosting'] },
      ],
      echo: [{ operations: ['describeL7DataV2'], status: 401, style: 'json' }],
      expected: { access: 'EDGE_AUTH', usage: 'EDGE_PERMISSION', topn: 'EDGE_HTTP', 'cc-attack': 'EDGE_BAD_RESPONSE', inventory: 'success' },
      logged: ['EDGE_TIMEOUT', 'EDGE_NETWORK', 'EDGE_DELIVERY'],
    });
    expect(leaks(out)).toEqual([]);

    // The hostile echo really happened and its text reached the page, escaped and masked.
    expect(proxy.echoes().filter((e) => e.operation === 'describeL7DataV2').length).toBeGreaterThan(0);
    expect(proxy.echoes()[0]?.authorization).toBe(`Bearer ${TOKEN}`);
    expect(row(out.get('file landing')!, 'access')).toContain(`describeL7DataV2: HTTP 401, token missing or invalid: ${ECHO_ON_PAGE}`);
    expect(out.get('file landing')).not.toMatch(/<script>|&amp;|"pwned"/);
    const log = out.get('file stdout')!;
    expect(log).toContain('token may be invalid');
    expect(log).toContain('delivering WAF events failed');
    expect(receiver.requests().every((r) => r.status === 401)).toBe(true);
    // Basic auth refused what it had to, with a challenge that names no secret.
    expect(out.get('file metrics without credentials')).toMatch(/^401\n.*"www-authenticate":"Basic realm=\\"edge-exporter\\"/);
    expect(out.get('file metrics with a wrong password')).toMatch(/^401\n/);
    expect(out.get('file metrics with the token as bearer')).toMatch(/^401\n/);
    expect(out.get('file healthz')).toMatch(/^200\n/);

    // The upstream label arrives escaped in both formats.
    const escaped = 'name="evil \\"pkg\\" \\\\ <b>&</b>\\nnext"';
    expect(out.get('file metrics text')).toContain(escaped);
    expect(out.get('file metrics openmetrics')).toContain(escaped);
    expect(out.get('file metrics gzip')).toContain(escaped);
  }, 60_000);

  it('token from EDGE_API_TOKEN, HTTPS: 401, 500/200/403 echoes in JSON, a 502 echo in plain text, hang', async () => {
    const echoedBefore = proxy.echoes().length;
    const out = await faultedRun({
      name: 'env',
      tokenKeys: '',
      env: { EDGE_API_TOKEN: TOKEN },
      tls: true,
      otlpHeader: ['authorization', `Bearer ${OTLP_KEY}`],
      faults: [
        { unauthorized: true, operations: ['describeL7DataV2'] },
        { hang: true, operations: ['listLayer4Packages'] },
      ],
      echo: [
        { operations: ['describeL7UsageData'], status: 500, style: 'json' },
        { operations: ['describeL7MostData'], status: 200, style: 'json' },
        { operations: ['describeL7CCAttack'], status: 502, style: 'text' },
        { operations: ['getCacheRecordList'], status: 403, style: 'json' },
      ],
      expected: { access: 'EDGE_AUTH', usage: 'EDGE_HTTP', topn: 'EDGE_UPSTREAM', 'cc-attack': 'EDGE_HTTP', inventory: 'success' },
      logged: ['EDGE_TIMEOUT', 'EDGE_PERMISSION'],
    });
    expect(leaks(out)).toEqual([]);

    const page = out.get('env landing')!;
    expect(row(page, 'usage')).toContain(`describeL7UsageData: HTTP 500: ${ECHO_ON_PAGE}`);
    expect(row(page, 'topn')).toContain(`describeL7MostData: upstream code 1001: ${ECHO_ON_PAGE}`);
    expect(row(page, 'cc-attack')).toContain('describeL7CCAttack: HTTP 502');
    expect(new Set(proxy.echoes().slice(echoedBefore).map((e) => e.operation))).toEqual(new Set(['describeL7UsageData', 'describeL7MostData', 'describeL7CCAttack', 'getCacheRecordList']));
    expect(out.get('env metrics text')).toMatch(/^edge_exporter_collector_up\{collector="access"\} 0$/m);
  }, 60_000);
});
