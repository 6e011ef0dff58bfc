// Mistyped configs through the CLI: each row is refused by `run` and by
// `check-config` with exit 2 and one message naming the YAML path (with the
// key's file position, or the variable that set it), no secret in it, and
// nothing started: the listen port refuses, no state directory, no request
// reached the upstream. Then the failures only start-up can find.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { Daemon } from '../../src/daemon/daemon.js';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/log/logger.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { freePort } from '../support/ports.js';
import { Capture, cli, cliProcess, connectOutcome } from './helpers.js';

const SECRET = 'sim-token-bad-config-51f';
const FILE_TOKEN = 'token-from-file-8d2e';
const PASSWORD = 'scrape-password-c41a';
/** Every secret a row writes somewhere; none may reach the output. */
const SECRETS = [SECRET, FILE_TOKEN, PASSWORD, '918273645', 'second-line-4be0'];

let sim: Simulator;
let url: string;
let port: number;
let root: string;
let tls: { cert: string; key: string; otherKey: string };

beforeAll(async () => {
  sim = createSimulator({ clock: { mode: 'fixed', start: '2026-03-02 12:00:00' }, tokens: [{ token: SECRET, permissions: '*' }] });
  ({ url } = await sim.listen('127.0.0.1', 0));
  port = await freePort();
  root = mkdtempSync(join(tmpdir(), 'edge-bad-config-'));
  const dir = join(root, 'tls');
  mkdirSync(dir);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
  const otherKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' });
  writeFileSync(join(dir, 'other-key.pem'), otherKey);
  tls = { cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem'), otherKey: join(dir, 'other-key.pem') };
});
afterAll(async () => {
  await sim.close();
  rmSync(root, { recursive: true, force: true });
});

/** What a row builds its YAML from; every block ends with a newline so a row can append keys to it. */
interface Ctx {
  readonly url: string;
  /** `upstream:` with api_url (the simulator) and token. */
  readonly upstream: string;
  /** `server:` listening on the free port. */
  readonly server: string;
  /** `state_dir:` set to `stateDir`. */
  readonly state: string;
  /** A directory that does not exist yet. */
  readonly stateDir: string;
  /** The three above: a config that starts. */
  readonly base: string;
  readonly tls: { cert: string; key: string; otherKey: string };
  /** Writes a file in the row's directory and returns its path. */
  file(name: string, content: string): string;
  /** A directory in the row's directory. */
  directory(name: string): string;
}

interface Row {
  name: string;
  yaml: (c: Ctx) => string;
  /** The YAML path the message names. */
  path: string;
  /** The key the problem points at (with its indentation when it starts the line), or `$VAR` when a variable set the value. */
  at: string;
  message: RegExp;
  env?: Record<string, string>;
}

const ROWS: Row[] = [
  // Wrong types
  { name: 'a word where a number is expected', yaml: (c) => `${c.upstream}  concurrency: eight\n${c.server}${c.state}`,
    path: 'upstream.concurrency', at: '  concurrency:', message: /^expected a number, got a string$/ },
  { name: 'words where a duration is expected', yaml: (c) => `${c.base}collectors:\n  defaults:\n    delay: five minutes\n`,
    path: 'collectors.defaults.delay', at: '    delay:', message: /^expected a duration like 500ms, 15s, 5m, 1h \(or auto\)$/ },
  { name: 'a list where a mapping is expected', yaml: (c) => `${c.base}collectors: [access, usage]\n`,
    path: 'collectors', at: 'collectors:', message: /^expected a mapping, got a list$/ },
  { name: 'a list where a header mapping is expected', yaml: (c) => `${c.base}otlp:\n  headers: [x-api-key]\n`,
    path: 'otlp.headers', at: '  headers:', message: /^expected a mapping, got a list$/ },
  { name: 'a number where true/false is expected', yaml: (c) => `${c.base}waf_events:\n  enabled: 1\n`,
    path: 'waf_events.enabled', at: '  enabled:', message: /^expected true or false, got a number$/ },
  { name: 'a string where a list is expected', yaml: (c) => `${c.base}targets:\n  domains:\n    static: shop.example.com\n`,
    path: 'targets.domains.static', at: '    static:', message: /^expected a list, got a string$/ },
  { name: 'a number as the token', yaml: (c) => `upstream:\n  api_url: ${c.url}\n  token: 918273645\n${c.server}${c.state}`,
    path: 'upstream.token', at: '  token:', message: /^expected a string, got a number$/ },
  { name: 'an empty state_dir', yaml: (c) => `${c.upstream}${c.server}state_dir:\n`,
    path: 'state_dir', at: 'state_dir:', message: /^expected a string, got null/ },
  // Unknown keys, at several depths
  { name: 'a near-miss top-level key', yaml: (c) => `${c.base}colectors:\n  access: { enabled: false }\n`,
    path: 'colectors', at: 'colectors:', message: /^unknown key \(did you mean "collectors"\?\); expected one of: upstream, / },
  { name: 'an unknown collector', yaml: (c) => `${c.base}collectors:\n  acess:\n    enabled: false\n`,
    path: 'collectors.acess', at: '  acess:', message: /^unknown key \(did you mean "access"\?\)/ },
  { name: 'an unknown key in a collector', yaml: (c) => `${c.base}collectors:\n  access:\n    intervall: 1h\n`,
    path: 'collectors.access.intervall', at: '    intervall:', message: /^unknown key \(did you mean "interval"\?\)/ },
  { name: 'an unknown key in upstream', yaml: (c) => `${c.upstream}  tiemout: 15s\n${c.server}${c.state}`,
    path: 'upstream.tiemout', at: '  tiemout:', message: /^unknown key \(did you mean "timeout"\?\)/ },
  { name: 'an unknown key two levels down', yaml: (c) => `${c.upstream}  retry:\n    attempt: 3\n${c.server}${c.state}`,
    path: 'upstream.retry.attempt', at: '    attempt:', message: /^unknown key \(did you mean "attempts"\?\)/ },
  { name: 'an unknown key in server', yaml: (c) => `${c.server}  port: 9810\n${c.upstream}${c.state}`,
    path: 'server.port', at: '  port:', message: /^unknown key; expected one of: listen, basic_auth, tls, enable_reload$/ },
  { name: 'an unknown key in waf_events', yaml: (c) => `${c.base}waf_events:\n  severities: [high]\n`,
    path: 'waf_events.severities', at: '  severities:', message: /^unknown key \(did you mean "severity"\?\)/ },
  { name: 'an unknown key in otlp', yaml: (c) => `${c.base}otlp:\n  endpiont: http://127.0.0.1:4318/v1/logs\n`,
    path: 'otlp.endpiont', at: '  endpiont:', message: /^unknown key \(did you mean "endpoint"\?\)/ },
  // Schedules, intervals and durations
  { name: 'a cron schedule with four fields', yaml: (c) => `${c.base}collectors:\n  usage:\n    schedule: "*/5 * * *"\n`,
    path: 'collectors.usage.schedule', at: '    schedule:', message: /^invalid cron expression \(expected 5 or 6 fields but got 4\)/ },
  { name: 'a cron schedule with minute 61', yaml: (c) => `${c.base}collectors:\n  inventory:\n    schedule: "61 * * * *"\n`,
    path: 'collectors.inventory.schedule', at: '    schedule:', message: /^invalid cron expression \(minute: 61 / },
  { name: 'an interval that is no bucket size', yaml: (c) => `${c.base}collectors:\n  access:\n    interval: 2m\n`,
    path: 'collectors.access.interval', at: '    interval:', message: /^expected one of: 1m, 5m, 1h, 1d$/ },
  { name: 'an inventory interval under 10s', yaml: (c) => `${c.base}collectors:\n  inventory:\n    interval: 5s\n`,
    path: 'collectors.inventory.interval', at: '    interval:', message: /^expected a duration of at least 10000ms$/ },
  { name: 'a zero WAF poll interval', yaml: (c) => `${c.base}waf_events:\n  interval: 0\n`,
    path: 'waf_events.interval', at: '  interval:', message: /^expected a duration of at least 1000ms$/ },
  { name: 'a 30-day inventory interval (past the longest timer)', yaml: (c) => `${c.base}collectors:\n  inventory:\n    interval: 30d\n`,
    path: 'collectors.inventory.interval', at: '    interval:', message: /^expected a duration of at most 24d20h31m23s647ms \(the longest timer Node can run\)$/ },
  { name: 'a 60-day target refresh', yaml: (c) => `${c.base}targets:\n  refresh: 60d\n`,
    path: 'targets.refresh', at: '  refresh:', message: /^expected a duration of at most 24d20h31m23s647ms \(the longest timer Node can run\)$/ },
  { name: 'a retry min_delay above max_delay', yaml: (c) => `${c.upstream}  retry: { min_delay: 20s, max_delay: 10s }\n${c.server}${c.state}`,
    path: 'upstream.retry.min_delay', at: 'min_delay:', message: /^must not be greater than upstream\.retry\.max_delay$/ },
  // The token
  { name: 'no token anywhere (an empty EDGE_API_TOKEN is unset)', yaml: (c) => `upstream:\n  api_url: ${c.url}\n${c.server}${c.state}`,
    env: { EDGE_API_TOKEN: '' }, path: 'upstream.token', at: 'upstream:', message: /^set upstream\.token, upstream\.token_file or EDGE_API_TOKEN/ },
  { name: 'a token_file that does not exist', yaml: (c) => `upstream:\n  api_url: ${c.url}\n  token_file: ${c.directory('d')}/missing\n${c.server}${c.state}`,
    path: 'upstream.token_file', at: '  token_file:', message: /^cannot read the token file \S+: no such file or directory \(ENOENT\)$/ },
  { name: 'a token_file that is a directory', yaml: (c) => `upstream:\n  api_url: ${c.url}\n  token_file: ${c.directory('d')}\n${c.server}${c.state}`,
    path: 'upstream.token_file', at: '  token_file:', message: /^cannot read the token file \S+: illegal operation on a directory \(EISDIR\)$/ },
  { name: 'an empty token_file', yaml: (c) => `upstream:\n  api_url: ${c.url}\n  token_file: ${c.file('token', ' \n\n')}\n${c.server}${c.state}`,
    path: 'upstream.token_file', at: '  token_file:', message: /^the token file is empty$/ },
  { name: 'a token_file of two lines', yaml: (c) => `upstream:\n  api_url: ${c.url}\n  token_file: ${c.file('token', `${FILE_TOKEN}\nsecond-line-4be0\n`)}\n${c.server}${c.state}`,
    path: 'upstream.token_file', at: '  token_file:', message: /^the token file must hold one line without control characters$/ },
  { name: 'both token and token_file', yaml: (c) => `${c.upstream}  token_file: ${c.file('token', FILE_TOKEN)}\n${c.server}${c.state}`,
    path: 'upstream.token_file', at: '  token_file:', message: /^upstream\.token and upstream\.token_file are mutually exclusive/ },
  // URLs
  { name: 'an api_url that is no URL', yaml: (c) => `upstream:\n  api_url: api.example.com\n  token: ${SECRET}\n${c.server}${c.state}`,
    path: 'upstream.api_url', at: '  api_url:', message: /^expected an http:\/\/ or https:\/\/ URL$/ },
  { name: 'an api_url with another scheme', yaml: (c) => `upstream:\n  api_url: ftp://api.example.com\n  token: ${SECRET}\n${c.server}${c.state}`,
    path: 'upstream.api_url', at: '  api_url:', message: /^expected an http:\/\/ or https:\/\/ URL$/ },
  { name: 'an api_url without a host', yaml: (c) => `upstream:\n  api_url: "https://:8443"\n  token: ${SECRET}\n${c.server}${c.state}`,
    path: 'upstream.api_url', at: '  api_url:', message: /^expected an http:\/\/ or https:\/\/ URL$/ },
  { name: 'EDGE_API_URL that is no URL', yaml: (c) => c.base, env: { EDGE_API_URL: 'not-a-url' },
    path: 'upstream.api_url', at: '$EDGE_API_URL', message: /^expected an http:\/\/ or https:\/\/ URL$/ },
  { name: 'an OTLP endpoint without a scheme', yaml: (c) => `${c.base}otlp:\n  endpoint: localhost:4318\n`,
    path: 'otlp.endpoint', at: '  endpoint:', message: /^expected an http:\/\/ or https:\/\/ URL$/ },
  // The listen address
  { name: 'a listen address without a port', yaml: (c) => `${c.upstream}server:\n  listen: localhost\n${c.state}`,
    path: 'server.listen', at: '  listen:', message: /^expected HOST:PORT like 127\.0\.0\.1:9100/ },
  { name: 'a listen port above 65535', yaml: (c) => `${c.upstream}server:\n  listen: 127.0.0.1:70000\n${c.state}`,
    path: 'server.listen', at: '  listen:', message: /^expected HOST:PORT like 127\.0\.0\.1:9100/ },
  // The server's files
  { name: 'a TLS certificate that does not exist', yaml: (c) => `${c.server}  tls: { cert_file: ${c.directory('d')}/missing.pem, key_file: ${c.tls.key} }\n${c.upstream}${c.state}`,
    path: 'server.tls.cert_file', at: 'cert_file:', message: /^cannot read \S+: no such file or directory \(ENOENT\)$/ },
  { name: 'a TLS key that is a directory', yaml: (c) => `${c.server}  tls:\n    cert_file: ${c.tls.cert}\n    key_file: ${c.directory('d')}\n${c.upstream}${c.state}`,
    path: 'server.tls.key_file', at: '    key_file:', message: /^cannot read \S+: illegal operation on a directory \(EISDIR\)$/ },
  { name: 'a TLS certificate that is no PEM', yaml: (c) => `${c.server}  tls:\n    cert_file: ${c.file('cert.pem', 'not a certificate\n')}\n    key_file: ${c.tls.key}\n${c.upstream}${c.state}`,
    path: 'server.tls.cert_file', at: '    cert_file:', message: /^is not a PEM certificate$/ },
  { name: 'a TLS key of another certificate', yaml: (c) => `${c.server}  tls:\n    cert_file: ${c.tls.cert}\n    key_file: ${c.tls.otherKey}\n${c.upstream}${c.state}`,
    path: 'server.tls.key_file', at: '    key_file:', message: /^does not match the certificate in server\.tls\.cert_file$/ },
  { name: 'a password_file that does not exist', yaml: (c) => `${c.server}  basic_auth: { username: prom, password_file: ${c.directory('d')}/missing }\n${c.upstream}${c.state}`,
    path: 'server.basic_auth.password_file', at: 'password_file:', message: /^cannot read \S+: no such file or directory \(ENOENT\)$/ },
  { name: 'an empty password_file', yaml: (c) => `${c.server}  basic_auth:\n    username: prom\n    password_file: ${c.file('pw', '\n')}\n${c.upstream}${c.state}`,
    path: 'server.basic_auth.password_file', at: '    password_file:', message: /^the password file is empty$/ },
  { name: 'both password and password_file', yaml: (c) => `${c.server}  basic_auth:\n    username: prom\n    password: ${PASSWORD}\n    password_file: ${c.file('pw', PASSWORD)}\n${c.upstream}${c.state}`,
    path: 'server.basic_auth.password', at: '    password:', message: /^set exactly one of server\.basic_auth\.password, server\.basic_auth\.password_file and server\.basic_auth\.password_hash$/ },
];

let rowCount = 0;
function context(): Ctx {
  const dir = join(root, `row-${++rowCount}`);
  mkdirSync(dir);
  const upstream = `upstream:\n  api_url: ${url}\n  token: ${SECRET}\n`;
  const server = `server:\n  listen: 127.0.0.1:${port}\n`;
  const stateDir = join(dir, 'state');
  const state = `state_dir: ${stateDir}\n`;
  return {
    url, upstream, server, state, stateDir, base: upstream + server + state, tls,
    file(name, content) {
      writeFileSync(join(dir, name), content);
      return join(dir, name);
    },
    directory(name) {
      mkdirSync(join(dir, name), { recursive: true });
      return join(dir, name);
    },
  };
}

/** `file:line:col` of the key `at` names (the first line holding it), as the loader reports it. */
function where(file: string, text: string, at: string): string {
  if (at.startsWith('$')) return at;
  const lines = text.split('\n');
  const index = lines.findIndex((line) => line.includes(at));
  if (index < 0) throw new Error(`the row's YAML has no line holding ${JSON.stringify(at)}:\n${text}`);
  const col = (lines[index] ?? '').indexOf(at) + at.length - at.trimStart().length + 1;
  return `${file}:${index + 1}:${col}`;
}

/** The problem lines of a ConfigError message on stderr; fails unless stderr is exactly that message. */
function problemLines(stderr: string): string[] {
  const match = /^edge-exporter: invalid configuration \((\d+) problems?\):\n((?: {2}[^\n]+\n)+)$/.exec(stderr);
  if (!match) throw new Error(`stderr is not one configuration error:\n${stderr}`);
  const lines = (match[2] ?? '').trimEnd().split('\n').map((l) => l.slice(2));
  expect(lines).toHaveLength(Number(match[1]));
  return lines;
}

async function expectNothingStarted(stateDir: string): Promise<void> {
  expect(await connectOutcome(port)).toBe('ECONNREFUSED');
  expect(existsSync(stateDir)).toBe(false);
  expect(sim.requestCounts()).toEqual({});
}

describe('a mistyped config', () => {
  it.each(ROWS.map((row) => [row.name, row] as const))('%s: exit 2 naming the path, nothing started', async (_name, row) => {
    const c = context();
    const text = row.yaml(c);
    const file = c.file('config.yaml', text);
    for (const command of ['run', 'check-config']) {
      const r = await cli([command, '--config', file], row.env);
      expect(r.code, `${command}: ${r.err}`).toBe(2);
      expect(r.out).toBe('');
      const [problem, ...more] = problemLines(r.err);
      expect(more).toEqual([]);
      const prefix = `${where(file, text, row.at)} ${row.path}: `;
      expect(problem?.startsWith(prefix), `${command}: expected "${prefix}…", got "${problem}"`).toBe(true);
      expect(problem?.slice(prefix.length)).toMatch(row.message);
      for (const secret of SECRETS) expect(r.err).not.toContain(secret);
      await expectNothingStarted(c.stateDir);
    }
  });

  it('reports every problem of a file in one message, in file order', async () => {
    const c = context();
    const text = `${c.upstream}  tiemout: 15s\n${c.server}${c.state}collectors:\n  access:\n    interval: 2m\nwaf_events:\n  enabled: 1\n`;
    const file = c.file('config.yaml', text);
    for (const command of ['run', 'check-config']) {
      const r = await cli([command, '--config', file]);
      expect(r.code).toBe(2);
      expect(problemLines(r.err).map((line) => line.replace(/: .*$/, ''))).toEqual([
        `${file}:4:3 upstream.tiemout`,
        `${file}:10:5 collectors.access.interval`,
        `${file}:12:3 waf_events.enabled`,
      ]);
    }
    await expectNothingStarted(c.stateDir);
  });

  it('is refused the same by the real process: exit status 2, the message on stderr', async () => {
    const c = context();
    const text = `${c.base}collectors:\n  access:\n    interval: 2m\n`;
    const file = c.file('config.yaml', text);
    const r = await cliProcess(['run', '--config', file]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(problemLines(r.err)).toEqual([`${file}:9:5 collectors.access.interval: expected one of: 1m, 5m, 1h, 1d`]);
    await expectNothingStarted(c.stateDir);
  });

  it('while the same base config with valid TLS files starts, serves on the port and polls', async () => {
    const c = context();
    // A simulator of its own: a request this daemon had on the wire when it stopped can reach its upstream after the
    // test ends, and the shared simulator must stay silent for the rows that assert nothing was polled.
    const own = createSimulator({ clock: { mode: 'fixed', start: '2026-03-02 12:00:00' }, tokens: [{ token: SECRET, permissions: '*' }] });
    const { url: ownUrl } = await own.listen('127.0.0.1', 0);
    const file = c.file('config.yaml', `${c.server}  tls: { cert_file: ${tls.cert}, key_file: ${tls.key} }\n${c.upstream.replace(url, ownUrl)}${c.state}`);
    expect((await cli(['check-config', '--config', file])).code).toBe(0);
    const controller = new AbortController();
    const stdout = new Capture();
    const running = main(['run', '--config', file], { stdout, stderr: new Capture(), env: {} }, controller.signal);
    try {
      await expect.poll(() => stdout.text, { timeout: 10_000 }).toMatch(/serving metrics/);
      expect(await connectOutcome(port)).toBe('connected');
      await expect.poll(() => Object.keys(own.requestCounts()).length, { timeout: 10_000 }).toBeGreaterThan(0);
    } finally {
      controller.abort();
      await running.catch(() => undefined);
      await own.close();
    }
    expect(await running).toBe(0);
    expect(readdirSync(c.stateDir).length).toBeGreaterThan(0);
    expect(sim.requestCounts()).toEqual({});
  });
});

describe('a valid config the environment defeats', () => {
  let blocker: Server | undefined;
  // After each test, also one that failed or timed out (its body never reaches its own close): a port left bound
  // would fail the next tests, which expect it to refuse connections.
  afterEach(() => new Promise<void>((resolve) => {
    const b = blocker;
    blocker = undefined;
    if (b?.listening) b.close(() => resolve());
    else resolve();
  }));

  it('a listen port in use: exit 1 naming server.listen, the process ends, nothing polled', async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker?.listen(port, '127.0.0.1', resolve));
    const c = context();
    const file = c.file('config.yaml', c.base);
    const expected = `edge-exporter: server.listen: cannot listen on 127.0.0.1:${port}: address already in use (EADDRINUSE)\n`;
    const inProcess = await cli(['run', '--config', file]);
    expect(inProcess.code).toBe(1);
    expect(inProcess.err).toBe(expected);
    const child = await cliProcess(['run', '--config', file]);
    expect(child.code).toBe(1);
    expect(child.err).toBe(expected);
    expect(sim.requestCounts()).toEqual({});
    await new Promise<void>((resolve) => blocker?.close(() => resolve()));
    blocker = undefined;
    expect(await connectOutcome(port)).toBe('ECONNREFUSED');
  });

  it('a state_dir with a file in the way: exit 1 naming the directory, the port never opened', async () => {
    const c = context();
    const blocked = join(c.file('not-a-dir', 'x'), 'state');
    const file = c.file('config.yaml', `${c.upstream}${c.server}state_dir: ${blocked}\n`);
    const r = await cli(['run', '--config', file]);
    expect(r.code).toBe(1);
    // One message naming the directory and the cause, no stack trace.
    expect(r.err).toMatch(/^edge-exporter: [^\n]+\n$/);
    expect(r.err).toContain(`${blocked}: cannot create the state directory: not a directory (ENOTDIR)`);
    expect(await connectOutcome(port)).toBe('ECONNREFUSED');
    expect(sim.requestCounts()).toEqual({});
  });

  it('a TLS file gone between load and start: the daemon fails before the state directory or the port', async () => {
    const c = context();
    const key = c.file('key.pem', readFileSync(tls.key, 'utf8'));
    const config = loadConfig({ text: `${c.server}  tls: { cert_file: ${tls.cert}, key_file: ${key} }\n${c.upstream}${c.state}`, env: {}, serverFiles: true });
    rmSync(key);
    const daemon = new Daemon({ config, logger: createLogger({ level: 'fatal', destination: new Capture() }), version: 'test' });
    await expect(daemon.start()).rejects.toThrow(`server.tls.key_file: cannot read ${key}: no such file or directory (ENOENT)`);
    await daemon.stop();
    await expectNothingStarted(config.state_dir);
  });
});
