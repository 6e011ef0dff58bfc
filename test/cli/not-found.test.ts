// A 404 as `call` reports it, against the simulator answering both ways the
// vendor document leaves open (docs/upstream-notes.md, "Errors and
// envelopes"): a package that does not exist is the upstream's message; a
// wrong path keeps the path hint when whatever serves the paths answers
// (the gatewayNotFound reading), and shows the upstream's words when the
// platform itself answers the unknown path in its envelope (the default).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { cli } from './helpers.js';

const TOKEN = 'sim-token-404';
const dir = mkdtempSync(join(tmpdir(), 'edge-not-found-'));
let sim: Simulator;
let env: Record<string, string>;
let wrongPath: string;

beforeAll(async () => {
  sim = createSimulator({ clock: { mode: 'fixed', start: '2026-03-02 12:00:00' }, tokens: [{ token: TOKEN, permissions: '*' }] });
  const { url } = await sim.listen('127.0.0.1', 0);
  env = { EDGE_API_URL: url, EDGE_API_TOKEN: TOKEN };
  wrongPath = join(dir, 'wrong-path.yaml');
  writeFileSync(wrongPath, `upstream:\n  api_url: ${url}\n  token: ${TOKEN}\n  paths:\n    listDomains: /prod-api/cdn/domain/lst\n`);
});
afterEach(() => sim.readings.reset());
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('call: a 404', () => {
  it.each([[false], [true]])('for a package that does not exist is the upstream\'s message (gatewayNotFound %s)', async (gateway) => {
    sim.readings.merge({ gatewayNotFound: gateway });
    const r = await cli(['call', 'getPackageDetails', '--body', '{"oid":"no-such-package"}'], env);
    expect(r).toEqual({ code: 1, out: '', err: 'edge-exporter: EDGE_NOT_FOUND: getPackageDetails: HTTP 404, upstream code 404: 套餐不存在\n' });
  });

  it('for a wrong path answered by the framework in front keeps the path hint', async () => {
    sim.readings.merge({ gatewayNotFound: true });
    const r = await cli(['call', 'listDomains', '--config', wrongPath, '--body', '{"filters":[],"searchHeader":{"isActive":["1"]}}'], {});
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      'edge-exporter: EDGE_NOT_FOUND: listDomains: HTTP 404 without the upstream\'s error body: path not found ' +
        '(check upstream.paths.listDomains and upstream.api_url)\n',
    );
  });

  it('for a wrong path the platform answers in its envelope shows its words, which name the path', async () => {
    const r = await cli(['call', 'listDomains', '--config', wrongPath, '--body', '{"filters":[],"searchHeader":{"isActive":["1"]}}'], {});
    expect(r.code).toBe(1);
    expect(r.err).toBe('edge-exporter: EDGE_NOT_FOUND: listDomains: HTTP 404, upstream code 404: Not Found: /prod-api/cdn/domain/lst\n');
  });
});
