// `edge-exporter doctor` end to end against the simulator on loopback: the
// default answers pass every check, the JSON and the table say the same, a
// refused token stops the run after the one request it took, usage and config
// errors exit 2 before anything is sent, and no run ever sends a write.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderText } from '../../src/doctor/index.js';
import { DOCTOR_CHECKS, type DoctorReport } from '../../src/doctor/types.js';
import { freePort } from '../support/ports.js';
import { cli, cliProcess } from './helpers.js';
import { doctorJson, doctorText, requestsSeen, startDoctorSim, textVerdicts, TOKEN, verdicts, writesSeen, type DoctorSim } from './doctor-helpers.js';

let d: DoctorSim;
let dir: string;

beforeAll(async () => {
  d = await startDoctorSim();
  dir = mkdtempSync(join(tmpdir(), 'edge-doctor-'));
});
afterAll(async () => {
  await d.sim.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  d.sim.readings.reset();
  d.sim.reset();
});

/** Every check but late_revision, which a one-minute run cannot measure, and waf_audit: the default config forwards no WAF events. */
const UNKNOWN: readonly string[] = ['late_revision', 'waf_audit'];
const ALL_OK = Object.fromEntries(DOCTOR_CHECKS.map((id) => [id, UNKNOWN.includes(id) ? 'unknown' : 'ok']));

describe('doctor against the default simulator', () => {
  it('passes every check, exits 0, and sends each read operation the collectors use, nothing else', async () => {
    const r = await doctorJson(d);
    expect(r.code).toBe(0);
    expect(verdicts(r.report)).toEqual(ALL_OK);
    expect(r.report.checks.map((c) => c.id)).toEqual([...DOCTOR_CHECKS]);
    expect(r.report.checks.flatMap((c) => c.set)).toEqual([]);
    expect(r.report.summary).toMatchObject({ ok: DOCTOR_CHECKS.length - UNKNOWN.length, differs: 0, unknown: UNKNOWN.length, refused: false, exitCode: 0 });
    // The default config enables every collector but the WAF event forwarder; each of their read operations is asked.
    expect(Object.keys(d.sim.requestCounts()).sort()).toEqual([
      'describeHostAcceleratePackOrder', 'describeHosting', 'describeL7CCAttack', 'describeL7DataV2', 'describeL7MostData',
      'describeL7UsageData', 'describeLogV2', 'describeVQUserData', 'getCacheRecordList', 'getPackageDetails', 'getPackages',
      'listDomains', 'listLayer4Packages',
    ]);
    // Both spellings of 9, 10 and 13, once each; every other operation once, the statistics and WAF probes a few times.
    // Then the requests-per-hour estimate lists the targets as the daemon does: one listDomains page and getPackages more.
    expect(d.sim.requestCounts()).toMatchObject({ getPackages: 1 + 1, listLayer4Packages: 2, getPackageDetails: 2, listDomains: 2 + 1 });
    expect(r.report.summary.requests).toBe(requestsSeen(d.sim) - 2);
    expect(r.report.summary.requests).toBeLessThanOrEqual(30);
    expect(r.report.summary.durationMs).toBeLessThan(50_000);
  });

  it('says in the table what it says in JSON', async () => {
    const json = await doctorJson(d);
    const text = await doctorText(d);
    expect(text.code).toBe(json.code);
    expect(textVerdicts(text.out)).toEqual(verdicts(json.report));
    expect(text.out).toMatch(new RegExp(`^doctor: ${json.report.summary.ok} ok, 0 differ, ${UNKNOWN.length} unknown; \\d+ request\\(s\\) in \\d+\\.\\d s; exit 0$`, 'm'));
    for (const c of json.report.checks) expect(text.out).toContain(`assumed   ${c.assumed}`);
    // The table is the JSON report rendered: same blocks, same order (the observations differ only by the time of the run).
    const rendered = renderText(json.report).split('\n').filter((l) => /^\w/.test(l)).map((l) => l.split(/ {2,}/).slice(0, 2).join(' '));
    const printed = text.out.split('\n').filter((l) => /^\w/.test(l)).map((l) => l.split(/ {2,}/).slice(0, 2).join(' '));
    const summary = (lines: string[]): number => lines.findIndex((l) => l.startsWith('doctor: '));
    expect(printed.slice(0, summary(printed))).toEqual(rendered.slice(0, summary(rendered)));
  });

  it('states the requests per hour the config makes of this account, in the table and in JSON', async () => {
    const json = await doctorJson(d);
    const { requests } = json.report as typeof json.report & { requests: { targets: { domains: number; packages: number }; perHour: number } };
    // The default simulator: 20 domains; getPackages lists every layer-7 and layer-4 package.
    expect(requests.targets).toEqual({ domains: 20, packages: d.sim.world.l7Packages.length + d.sim.world.l4Packages.length });
    expect(requests.perHour).toBeGreaterThan(12 * 20);
    const text = await doctorText(d);
    expect(text.out).toContain('requests per hour (20 domains, ');
    expect(text.out).toMatch(new RegExp(`^ {2}total +${Math.round(requests.perHour)}/h; upstream.rate_limit: none$`, 'm'));
  });

  it('runs as a child process against the bundled simulator of a config file, and exits', async () => {
    const file = join(dir, 'bundled.yaml');
    writeFileSync(file, 'simulator:\n  enabled: true\n  domains: 5\ncollectors:\n  access:\n    interval: 1m\n');
    const r = await cliProcess(['doctor', '--config', file]);
    expect(r.err).toContain('doctor: asking the bundled simulator at http://127.0.0.1:');
    expect(textVerdicts(r.out)).toEqual(ALL_OK);
    expect(r.out).toContain('access (describeL7DataV2, 1m): 7 series spaced 1m');
    expect(r.code).toBe(0);
  });
});

describe('a refused token', () => {
  const refused = (r: { out: string; err: string }): void => {
    expect(r.err).toMatch(/upstream\.token, upstream\.token_file or EDGE_API_TOKEN/);
    const report = JSON.parse(r.out) as DoctorReport;
    expect(report.checks.find((c) => c.id === 'auth')).toMatchObject({ verdict: 'differs' });
    expect(report.checks.filter((c) => c.id !== 'auth').every((c) => c.verdict === 'unknown')).toBe(true);
    expect(report.summary).toMatchObject({ refused: true, exitCode: 1, requests: 1 });
  };

  it('(a wrong token: 401) stops after the first request with a clear message and exits 1, never printing the token', async () => {
    const wrong = 'wrong-token-8e21f0';
    const r = await doctorJson(d, { ...d.env, EDGE_API_TOKEN: wrong });
    expect(r.code).toBe(1);
    refused(r);
    expect(r.err).toContain('HTTP 401');
    expect(r.out + r.err).not.toContain(wrong);
    expect(d.sim.requestCounts()).toEqual({ getPackages: 1 });
  });

  it('(the unauthorized fault: a revoked token) stops after the first request; the table says so too', async () => {
    d.sim.faults.add({ unauthorized: true });
    const r = await doctorJson(d);
    expect(r.code).toBe(1);
    refused(r);
    expect(requestsSeen(d.sim)).toBe(1);
    d.sim.reset();
    d.sim.faults.add({ unauthorized: true });
    const text = await doctorText(d);
    expect(text.code).toBe(1);
    expect(text.out).toMatch(/^auth +differs +assumed /m);
    expect(text.out).toMatch(/^ +set +upstream\.token: a valid token \(or upstream\.token_file, EDGE_API_TOKEN\)$/m);
    expect(text.out).toMatch(/exit 1$/m);
    expect(text.out + text.err).not.toContain(TOKEN);
    expect(requestsSeen(d.sim)).toBe(1);
  });

  it('(403 on a later operation) stops there, naming the missing permission', async () => {
    const r = await doctorJson(d, { ...d.env, EDGE_API_TOKEN: 'no-permissions-3c7b' });
    expect(r.code).toBe(1);
    expect(r.check('auth')).toMatchObject({ verdict: 'differs', set: [] });
    expect(r.err).toContain('HTTP 403');
    expect(r.err).toContain('statistics:access:query');
    // getPackages needs no permission label; the timezone probe is the first statistics request, sent alone.
    expect(d.sim.requestCounts()).toEqual({ getPackages: 1, describeL7DataV2: 1 });
  });
});

describe('an upstream that does not answer', () => {
  it('stops after the first request and exits 1: nothing was checked', async () => {
    const port = await freePort();
    const r = await cli(['doctor', '--json'], { EDGE_API_URL: `http://127.0.0.1:${port}`, EDGE_API_TOKEN: TOKEN });
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out) as DoctorReport;
    expect(report.checks[0]).toMatchObject({ id: 'auth', verdict: 'unknown' });
    expect(report.checks[0]?.observed[0]).toMatch(/^getPackages: EDGE_NETWORK: /);
    expect(report.checks.slice(1).map((c) => c.observed)).toEqual(
      report.checks.slice(1).map(() => ['not asked: the upstream did not answer the first request']),
    );
    expect(report.summary).toMatchObject({ differs: 0, refused: true, requests: 1, exitCode: 1 });
  });
});

describe('usage and config errors exit 2 before anything is sent', () => {
  it.each([
    [['doctor', 'now'], /unexpected argument "now"/],
    [['doctor', '--frobnicate'], /unknown option --frobnicate; options: --config, --account, --json/],
    [['doctor', '--config'], /argument missing/],
  ])('%j', async (argv, message) => {
    const r = await cli(argv, d.env, undefined, { clock: d.sim.clock });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    // The doctor's own usage, not the list of every command.
    expect(r.err).toContain('\n\nusage: edge-exporter doctor [--config FILE] [--account NAME] [--json]\n');
    expect(r.err).not.toContain('commands:');
    expect(requestsSeen(d.sim)).toBe(0);
  });

  it.each([
    ['a missing file', null],
    ['an invalid value', 'upstream:\n  timezone: Mars\n'],
    ['an unknown key', 'collectors:\n  acces:\n    interval: 5m\n'],
    ['no upstream and no simulator', 'log:\n  level: info\n'],
  ])('%s: the message check-config prints', async (_name, yaml) => {
    const file = join(dir, `bad-${_name.replaceAll(' ', '-')}.yaml`);
    if (yaml !== null) writeFileSync(file, yaml);
    // Without the environment's upstream, so the file alone decides.
    const doctor = await cli(['doctor', '--config', file], {});
    const check = await cli(['check-config', '--config', file], {});
    expect(doctor.code).toBe(2);
    expect(check.code).toBe(2);
    expect(doctor.err).toBe(check.err);
    expect(doctor.out).toBe('');
    expect(requestsSeen(d.sim)).toBe(0);
  });

  it('the environment alone without EDGE_API_URL is a config error too', async () => {
    const r = await cli(['doctor'], { EDGE_API_TOKEN: TOKEN });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/upstream\.api_url/);
    expect(r.err).not.toContain(TOKEN);
  });

  it('--help prints the usage and exits 0', async () => {
    const r = await doctorText(d, ['--help']);
    expect(r.code).toBe(0);
    expect(r.out).toBe('usage: edge-exporter doctor [--config FILE] [--account NAME] [--json]\n');
    expect(requestsSeen(d.sim)).toBe(0);
  });
});

describe('read-only', () => {
  it('sends no write operation, whatever the upstream answers', async () => {
    // The doctor is judged by what reached the upstream: nothing of 2, 11, 12, 16-19 in any of these runs.
    for (const readings of [{}, { pathForm: 'bare' as const }, { pathForm: 'prefixed' as const }, { ignoreRanges: true }]) {
      d.sim.readings.reset();
      d.sim.readings.merge(readings);
      d.sim.reset();
      await doctorText(d);
      expect(writesSeen(d.sim)).toEqual([]);
      expect(requestsSeen(d.sim)).toBeGreaterThan(10);
    }
  });
});
