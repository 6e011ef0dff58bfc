// The CLI end to end, in-process: sub-commands against a simulator on
// loopback, exit codes, and what reaches stdout and stderr.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { Capture } from '../support/capture.js';

let sim: Simulator;
let env: Record<string, string>;
const SECRET = 'sim-token-7c0ffee';

beforeAll(async () => {
  sim = createSimulator({ clock: { mode: 'fixed', start: '2026-03-02 12:00:00' }, tokens: [{ token: SECRET, permissions: '*' }] });
  const { url } = await sim.listen('127.0.0.1', 0);
  env = { EDGE_API_URL: url, EDGE_API_TOKEN: SECRET };
});
afterAll(() => sim.close());

async function cli(argv: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await main(argv, { stdout, stderr, env: { ...env, ...extraEnv } }, new AbortController().signal);
  return { code, out: stdout.text, err: stderr.text };
}

describe('call', () => {
  it('runs an operation from the environment alone and prints its answer as JSON', async () => {
    const r = await cli(['call', 'listDomains', '--body', '{"filters":[],"searchHeader":{"isActive":[]},"pageNum":1,"pageSize":500}']);
    expect(r.code).toBe(0);
    const body = JSON.parse(r.out) as { total: number; rows: Array<{ domainName: string }> };
    expect(body.total).toBe(sim.world.domains.length);
    expect(body.rows.map((d) => d.domainName)).toEqual(sim.world.domains.map((d) => d.domainName));
  });

  it('takes a path parameter from the body', async () => {
    const pkg = sim.world.l4Packages[0]!;
    const r = await cli(['call', 'getPackageDetails', '--body', JSON.stringify({ oid: pkg.oid })]);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.out) as { data: { consumptionPort: number } }).data.consumptionPort).toBe(pkg.rules.length);
  });

  it('reads --body-file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'edge-cli-')), 'body.json');
    writeFileSync(file, JSON.stringify({ urls: [`https://${sim.world.domains[0]!.domainName}/a.js`], area: 'global' }));
    const before = sim.world.cacheRecords.length;
    const r = await cli(['call', 'pushUrlsCache', '--body-file', file]);
    expect(r.code).toBe(0);
    expect(sim.world.cacheRecords.length).toBe(before + 1);
  });

  it('rejects an invalid body locally: exit 2, the field named, nothing sent', async () => {
    const r = await cli(['call', 'describeL7UsageData', '--body',
      '{"interval":"2m","oids":[],"params":{"beginTime":"2026-03-02 10:00:00","endTime":"2026-03-02 11:00:00"},"action":[{"metricName":"trafficTrend"}]}']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/interval/);
    expect(r.err).toMatch(/"1m"\|"5m"\|"1h"\|"1d"/);
    expect(sim.requestCounts().describeL7UsageData).toBeUndefined();
  });

  it('exits 1 with a typed message on 401, and never prints the token', async () => {
    const wrong = 'wrong-token-5eb1a';
    const r = await cli(['call', 'getPackages'], { EDGE_API_TOKEN: wrong });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/EDGE_AUTH/);
    expect(r.err + r.out).not.toContain(wrong);
  });

  it.each([
    [['call'], /exactly one OPERATION/],
    [['call', 'nope'], /unknown operation "nope"/],
    [['call', 'getPackages', '--body', '{oops'], /not valid JSON/],
    [['call', 'getPackages', '--body', '{}', '--body-file', 'x'], /not both/],
    [['frobnicate'], /unknown command/],
  ])('usage error %j exits 2', async (argv, message) => {
    const r = await cli(argv);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
  });

  it('needs an upstream: without config or EDGE_API_URL it names the config path', async () => {
    const stdout = new Capture();
    const stderr = new Capture();
    const code = await main(['call', 'getPackages'], { stdout, stderr, env: {} }, new AbortController().signal);
    expect(code).toBe(2);
    expect(stderr.text).toMatch(/upstream\.api_url/);
  });

  it('lists every operation in call --help', async () => {
    const r = await cli(['call', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/describeLogV2.*describeVQUserData/s);
  });
});

describe('check-config', () => {
  it('accepts config.example.yaml', async () => {
    const r = await cli(['check-config', '--config', 'config.example.yaml']);
    expect(r.code).toBe(0);
  });

  it('exits 2 naming the YAML path and line of each problem', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'edge-cli-')), 'bad.yaml');
    writeFileSync(file, 'upstream:\n  api_url: http://127.0.0.1:1\n  token: x1234\n  retry:\n    attempts: zero\n  timeout: soon\n');
    const r = await cli(['check-config', '--config', file], { EDGE_API_URL: '', EDGE_API_TOKEN: '' });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/bad\.yaml:5:\d+ upstream\.retry\.attempts/);
    expect(r.err).toMatch(/bad\.yaml:6:\d+ upstream\.timeout/);
  });

  it('checks --web.config.file as run reads it: a key Node cannot enforce exits 2 naming the file, line and key; a good one is OK', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edge-cli-web-'));
    const web = join(dir, 'web.yml');
    writeFileSync(web, 'basic_auth_users:\n  prom: "$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi"\nrate_limit: { interval: 1s, burst: 2 }\n');
    const bad = await cli(['check-config', '--config', 'config.example.yaml', '--web.config.file', web]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain(`${web}:3:1 rate_limit: not supported by edge-exporter: a request rate limit on the server`);
    expect(bad.err).not.toContain('QOauhQNbBCuQDKes6eFzPe');
    writeFileSync(web, 'basic_auth_users:\n  prom: "$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi"\n');
    const good = await cli(['check-config', '--config', 'config.example.yaml', '--web.config.file', web]);
    expect([good.code, good.out]).toEqual([0, `config.example.yaml: OK\n${web}: OK\n`]);
  });
});

describe('run', () => {
  it('serves /metrics from the bundled simulator, and stops cleanly on abort', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edge-run-'));
    const config = join(dir, 'config.yaml');
    writeFileSync(config, readFileSync('config.example.yaml', 'utf8').replace(/^state_dir: .*$/m, `state_dir: ${join(dir, 'state')}`));
    const stdout = new Capture();
    const controller = new AbortController();
    const running = main(['run', '--config', config, '--listen', '127.0.0.1:0'], { stdout, stderr: new Capture(), env: {} }, controller.signal);
    await expect.poll(() => stdout.text, { timeout: 10_000 }).toMatch(/serving metrics/);
    const lines = () => stdout.text.trim().split('\n').map((l) => JSON.parse(l) as { msg: string; url?: string });
    const url = lines().find((l) => l.msg === 'serving metrics')?.url ?? '';
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    await expect.poll(async () => (await fetch(url)).text(), { timeout: 10_000 }).toMatch(/^edge_exporter_collector_up\{collector="access"\} 1$/m);
    controller.abort();
    expect(await running).toBe(0);
    expect(lines()[0]?.msg).toMatch(/bundled simulator listening/);
    expect(lines().map((l) => l.msg)).toEqual(expect.arrayContaining([expect.stringMatching(/^shutting down/), 'engine stopped']));
    // State was saved on the way out.
    expect(readdirSync(join(dir, 'state')).sort()).toContain('ledger-access.json');
  });

  it('rejects a malformed --listen before starting anything', async () => {
    const r = await cli(['run', '--config', 'config.example.yaml', '--listen', 'nope']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/invalid --listen "nope"/);
  });
});
