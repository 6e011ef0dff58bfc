// `doctor` and `call` over several accounts, each against its own simulator
// on loopback: the doctor checks every account by default, one with
// --account, an unknown name refused before anything is sent; each
// account's requests reach its own simulator only, one account's refused
// token is that account's verdict alone, and no token is printed. `call`
// asks the account --account names, and refuses to guess among several.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DoctorReport } from '../../src/doctor/types.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { cli } from './helpers.js';
import { requestsSeen, verdicts, writesSeen } from './doctor-helpers.js';

/** 2026-03-02 12:07:30 in the platform zone, as the other doctor tests pin it. */
const NOW = Date.UTC(2026, 2, 2, 4, 7, 30);
const EU = { name: 'eu', token: 'eu-doctor-token-31d0' };
const US = { name: 'us', token: 'us-doctor-token-8f2a' };

let eu: { sim: Simulator; url: string };
let us: { sim: Simulator; url: string };
let dir: string;

async function sim(seed: number, token: string) {
  const s = createSimulator({ seed, clock: { mode: 'fixed', start: NOW }, tokens: [{ token, permissions: '*' }] });
  return { sim: s, url: (await s.listen('127.0.0.1', 0)).url };
}

beforeAll(async () => {
  eu = await sim(1, EU.token);
  us = await sim(2, US.token);
  dir = mkdtempSync(join(tmpdir(), 'edge-doctor-accounts-'));
});
afterAll(async () => {
  await Promise.all([eu.sim.close(), us.sim.close()]);
  rmSync(dir, { recursive: true, force: true });
});

function config(usToken = US.token): string {
  const file = join(dir, `config-${usToken}.yaml`);
  writeFileSync(file, [
    'accounts:',
    `  - name: eu`, '    upstream:', `      api_url: ${JSON.stringify(eu.url)}`, `      token: ${EU.token}`,
    `  - name: us`, '    upstream:', `      api_url: ${JSON.stringify(us.url)}`, `      token: ${usToken}`,
  ].join('\n'));
  return file;
}

function run(argv: string[]) {
  return cli(['doctor', ...argv], {}, undefined, { clock: eu.sim.clock });
}

describe('doctor with accounts:', () => {
  it('checks every account against its own upstream, one report each', async () => {
    eu.sim.reset();
    us.sim.reset();
    const r = await run(['--config', config(), '--json']);
    expect(r.code, r.err).toBe(0);
    const { accounts } = JSON.parse(r.out) as { accounts: (DoctorReport & { account: string })[] };
    expect(accounts.map((a) => a.account)).toEqual(['eu', 'us']);
    for (const a of accounts) expect(verdicts(a).auth).toBe('ok');
    expect(requestsSeen(eu.sim)).toBeGreaterThan(0);
    expect(requestsSeen(us.sim)).toBeGreaterThan(0);
    expect(writesSeen(eu.sim)).toEqual([]);
    expect(r.err).toMatch(/^doctor: account eu: asking http:\/\/127\.0\.0\.1:\d+\/?, read-only/m);
    expect(r.err).toMatch(/^doctor: account us: asking /m);
    const text = await run(['--config', config()]);
    expect(text.out).toMatch(/^== account eu ==\n/);
    expect(text.out).toContain('\n== account us ==\n');
  });

  it('--account NAME checks that account alone; another account is not asked anything', async () => {
    eu.sim.reset();
    us.sim.reset();
    const r = await run(['--config', config(), '--account', 'us', '--json']);
    expect(r.code, r.err).toBe(0);
    const { accounts } = JSON.parse(r.out) as { accounts: { account: string }[] };
    expect(accounts.map((a) => a.account)).toEqual(['us']);
    expect(requestsSeen(eu.sim)).toBe(0);
    expect(requestsSeen(us.sim)).toBeGreaterThan(0);
  });

  it('refuses an unknown --account before anything is sent, naming the accounts there are', async () => {
    eu.sim.reset();
    us.sim.reset();
    const r = await run(['--config', config(), '--account', 'apac']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--account apac: no such account in the config \(it has eu, us\)/);
    expect(requestsSeen(eu.sim) + requestsSeen(us.sim)).toBe(0);
  });

  it('one account\'s refused token is its own verdict alone, exit 1, and no token is printed', async () => {
    eu.sim.reset();
    us.sim.reset();
    const r = await run(['--config', config('us-token-revoked-0000'), '--json']);
    expect(r.code).toBe(1);
    const { accounts } = JSON.parse(r.out) as { accounts: (DoctorReport & { account: string })[] };
    const [euReport, usReport] = accounts;
    if (!euReport || !usReport) throw new Error(r.out);
    expect(verdicts(euReport).auth).toBe('ok');
    expect(verdicts(usReport).auth).toBe('differs');
    for (const out of [r.out, r.err]) {
      expect(out).not.toContain(EU.token);
      expect(out).not.toContain('us-token-revoked-0000');
    }
  });
});

describe('call with accounts:', () => {
  it('asks the account --account names, and only it', async () => {
    eu.sim.reset();
    us.sim.reset();
    const r = await cli(['call', 'getPackages', '--config', config(), '--account', 'us'], {});
    expect(r.code, r.err).toBe(0);
    expect(requestsSeen(us.sim)).toBe(1);
    expect(requestsSeen(eu.sim)).toBe(0);
    const packages = (JSON.parse(r.out) as { data: { alias?: string }[] }).data;
    expect(packages.length).toBe(us.sim.world.l7Packages.length + us.sim.world.l4Packages.length);
  });

  it('refuses to guess among several accounts, and an unknown name, before anything is sent', async () => {
    eu.sim.reset();
    us.sim.reset();
    const none = await cli(['call', 'getPackages', '--config', config()], {});
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/the config lists 2 accounts \(eu, us\): name the one to call with --account/);
    const unknown = await cli(['call', 'getPackages', '--config', config(), '--account', 'apac'], {});
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/--account apac: no such account in the config \(it has eu, us\)/);
    expect(requestsSeen(eu.sim) + requestsSeen(us.sim)).toBe(0);
  });
});
