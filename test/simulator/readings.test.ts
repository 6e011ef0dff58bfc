// The readings themselves: the admin route, validation, what reset keeps,
// pathForm (a routing reading), and the config and command-line wiring. The
// statistics and WAF readings have their own files.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { simulateCommand } from '../../src/cli/simulate.js';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { createSimulator, DEFAULT_READINGS, type Readings } from '../../src/simulator/index.js';
import { READING_KEYS } from '../../src/simulator/readings.js';
import { useReadingsSim } from './helpers.js';

const rig = useReadingsSim({ domains: 4 });

const DEFAULT_JSON = {
  logTreadBucketMs: null, naiveTimestamps: false, bandwidthUnit: 'bits_per_second', totalsSkew: 1, lateRevision: null,
  ignoreRanges: false, clockOffsetMs: 0, paramsZone: null, recordTimeLagMs: 0, pathForm: 'both', omitZeroBuckets: false,
  logTreadStrictRange: false, gatewayNotFound: false, wafLateIngest: null, logTreadCountDelta: 0, logTreadCompleteOnly: false,
};

describe('/__admin/readings', () => {
  it('shows every reading, merges a POST, resets a key with null and all of them with DELETE', async () => {
    expect((await rig.h.admin('GET', 'readings')).body.data).toEqual(DEFAULT_JSON);
    await rig.h.admin('POST', 'readings', { bandwidthUnit: 'bytes_per_second', lateRevision: { afterMs: 60_000, factor: 1.1 } });
    const merged = await rig.h.admin('POST', 'readings', { totalsSkew: 1.1 });
    expect(merged.body.data).toEqual({ ...DEFAULT_JSON, bandwidthUnit: 'bytes_per_second', lateRevision: { afterMs: 60_000, factor: 1.1 }, totalsSkew: 1.1 });
    expect(rig.h.sim.readings.get().totalsSkew).toBe(1.1);
    const cleared = await rig.h.admin('POST', 'readings', { lateRevision: null });
    expect(cleared.body.data).toEqual({ ...DEFAULT_JSON, bandwidthUnit: 'bytes_per_second', totalsSkew: 1.1 });
    expect((await rig.h.admin('GET', 'state')).body.data).toMatchObject({ readings: cleared.body.data });
    expect((await rig.h.admin('DELETE', 'readings')).body.data).toEqual(DEFAULT_JSON);
    expect(rig.h.sim.readings.get()).toEqual(DEFAULT_READINGS);
  });

  it.each([
    [{ logTreadBucketMs: 90_000 }],
    [{ logTreadBucketMs: 2 * 86_400_000 }],
    [{ naiveTimestamps: 'yes' }],
    [{ bandwidthUnit: 'bytes' }],
    [{ totalsSkew: 0 }],
    [{ lateRevision: { afterMs: -1, factor: 1.1 } }],
    [{ lateRevision: { afterMs: 0, factor: 1.1, when: 'later' } }],
    [{ lateRevision: 1.1 }],
    [{ ignoreRanges: 1 }],
    [{ clockOffsetMs: 1.5 }],
    [{ paramsZone: 'Asia/Tokyo' }],
    [{ recordTimeLagMs: -1 }],
    [{ omitZeroBuckets: 'no' }],
    [{ logTreadStrictRange: 1 }],
    [{ wafLateIngest: { fraction: 0, minMs: 0, maxMs: 0 } }],
    [{ wafLateIngest: { fraction: 1.5, minMs: 0, maxMs: 0 } }],
    [{ wafLateIngest: { fraction: 0.5, minMs: -1, maxMs: 0 } }],
    [{ wafLateIngest: { fraction: 0.5, minMs: 60_000, maxMs: 59_999 } }],
    [{ wafLateIngest: { fraction: 0.5, minMs: 0, maxMs: 1.5 } }],
    [{ wafLateIngest: { fraction: 0.5, minMs: 0, maxMs: 0, when: 'later' } }],
    [{ wafLateIngest: 0.5 }],
    [{ logTreadCountDelta: 1.5 }],
    [{ logTreadCountDelta: '2' }],
    [{ logTreadCompleteOnly: 'yes' }],
    [{ pathForm: 'neither' }],
    [{ noSuchReading: true }],
    [[]],
  ])('refuses %j with 400 and changes nothing', async (body) => {
    await rig.h.admin('POST', 'readings', { totalsSkew: 2 });
    const res = await rig.h.admin('POST', 'readings', Array.isArray(body) ? body : { pathForm: 'bare', ...body });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
    expect(rig.h.sim.readings.get()).toEqual({ ...DEFAULT_READINGS, totalsSkew: 2 });
  });

  it('refuses a body that is not JSON', async () => {
    const res = await rig.h.raw('POST', '/__admin/readings', { auth: null, body: '{"totalsSkew":' });
    expect(res.status).toBe(400);
  });
});

describe('readings as an option', () => {
  it('are validated at construction with a ReadingError', () => {
    expect(() => createSimulator({ readings: { totalsSkew: -1 } })).toThrow(expect.objectContaining({ code: 'EDGE_SIM_READING' }));
    expect(() => createSimulator({ readings: { pathForm: 'x' as Readings['pathForm'] } })).toThrow(/pathForm/);
  });

  it('start as given, fill the rest with defaults and survive reset()', async () => {
    const sim = createSimulator({ readings: { naiveTimestamps: true, clockOffsetMs: -5000, paramsZone: undefined } });
    expect(sim.readings.get()).toEqual({ ...DEFAULT_READINGS, naiveTimestamps: true, clockOffsetMs: -5000 });
    sim.readings.merge({ recordTimeLagMs: 1000 });
    sim.reset();
    expect(sim.readings.get()).toEqual({ ...DEFAULT_READINGS, naiveTimestamps: true, clockOffsetMs: -5000, recordTimeLagMs: 1000 });
    expect(sim.truth.readings.recordTimeLagMs).toBe(1000);
    await sim.close();
  });

  it('are kept by /__admin/reset', async () => {
    await rig.h.admin('POST', 'readings', { ignoreRanges: true });
    const res = await rig.h.admin('POST', 'reset');
    expect(res.body.data).toMatchObject({ readings: { ...DEFAULT_JSON, ignoreRanges: true } });
  });
});

describe('reading pathForm', () => {
  const listBody = JSON.stringify({ filters: [], searchHeader: { isActive: [] } });
  const status = async (path: string, method = 'POST') => (await rig.h.raw(method, path, method === 'POST' ? { body: listBody } : {})).status;
  const oid = () => rig.h.sim.world.l4Packages[0]?.oid ?? '';

  it('both (default) serves operations 9-13 with and without /prod-api', async () => {
    expect(await status('/prod-api/cdn/domain/list')).toBe(200);
    expect(await status('/cdn/domain/list')).toBe(200);
  });

  it('prefixed answers 404 on the bare spelling', async () => {
    rig.h.sim.readings.merge({ pathForm: 'prefixed' });
    expect(await status('/cdn/domain/list')).toBe(404);
    expect(await status(`/cdn/layer4/rules/getPackageDetails/${oid()}`, 'GET')).toBe(404);
    expect(await status('/cdn/packageRest/Layer4/list')).toBe(404);
    expect(await status('/prod-api/cdn/domain/list')).toBe(200);
    expect(await status(`/prod-api/cdn/layer4/rules/getPackageDetails/${oid()}`, 'GET')).toBe(200);
  });

  it('bare answers 404 on the /prod-api spelling of 9-13 only', async () => {
    rig.h.sim.readings.merge({ pathForm: 'bare' });
    expect(await status('/prod-api/cdn/domain/list')).toBe(404);
    expect(await status('/prod-api/cdn/layer4/rules/insertRule')).toBe(404);
    expect(await status('/cdn/domain/list')).toBe(200);
    expect(await status(`/cdn/layer4/rules/getPackageDetails/${oid()}`, 'GET')).toBe(200);
    expect((await rig.h.call('describeHosting', { pageNum: 1, pageSize: 10 })).status).toBe(200);
  });
});

const READINGS_YAML = `
simulator:
  enabled: true
  domains: 3
  readings:
    log_tread_bucket: 5m
    naive_timestamps: true
    bandwidth_unit: bytes_per_second
    totals_skew: 1.1
    late_revision: { after: 10m, factor: 0.9 }
    ignore_ranges: true
    clock_offset: -10m
    params_zone: '+00:00'
    record_time_lag: 600000
    path_form: prefixed
    omit_zero_buckets: true
    log_tread_strict_range: true
    gateway_not_found: true
    waf_late_ingest: { fraction: 0.25, min: 10m, max: 20m }
    log_tread_count_delta: -3
    log_tread_complete_only: true
`;

const FROM_YAML: Readings = {
  logTreadBucketMs: 300_000, naiveTimestamps: true, bandwidthUnit: 'bytes_per_second', totalsSkew: 1.1,
  lateRevision: { afterMs: 600_000, factor: 0.9 }, ignoreRanges: true, clockOffsetMs: -600_000, paramsZone: '+00:00',
  recordTimeLagMs: 600_000, pathForm: 'prefixed', omitZeroBuckets: true, logTreadStrictRange: true,
  gatewayNotFound: true, wafLateIngest: { fraction: 0.25, minMs: 600_000, maxMs: 1_200_000 }, logTreadCountDelta: -3,
  logTreadCompleteOnly: true,
};

describe('simulator.readings in the config', () => {
  it('maps every key to its reading, and the result builds a simulator with exactly those', async () => {
    const { readings } = loadConfig({ text: READINGS_YAML, env: {} }).simulator;
    expect(readings).toEqual(FROM_YAML);
    expect(Object.keys(readings ?? {}).sort()).toEqual([...READING_KEYS].sort());
    const sim = createSimulator({ readings });
    expect(sim.readings.get()).toEqual(FROM_YAML);
    await sim.close();
  });

  it('defaults to every reading off', () => {
    expect(loadConfig({ text: 'simulator: {enabled: true}', env: {} }).simulator.readings).toBeUndefined();
    expect(loadConfig({ text: 'simulator: {enabled: true, readings: {}}', env: {} }).simulator.readings).toEqual(DEFAULT_READINGS);
  });

  it.each([
    ['log_tread_bucket: 90s', 'log_tread_bucket'],
    ['log_tread_bucket: 2d', 'log_tread_bucket'],
    ['totals_skew: 0', 'totals_skew'],
    ['late_revision: { after: 1m }', 'late_revision.factor'],
    ['params_zone: Asia/Tokyo', 'params_zone'],
    ['path_form: neither', 'path_form'],
    ['log_tread_strict_range: yes', 'log_tread_strict_range'],
    ['clock_offset: soon', 'clock_offset'],
    ['waf_late_ingest: { fraction: 0, min: 0s, max: 1m }', 'waf_late_ingest.fraction'],
    ['waf_late_ingest: { fraction: 0.5, min: 2m, max: 1m }', 'waf_late_ingest.max'],
    ['waf_late_ingest: { fraction: 0.5, min: 1m }', 'waf_late_ingest.max'],
    ['log_tread_count_delta: 0.5', 'log_tread_count_delta'],
    ['log_tread_complete_only: 1', 'log_tread_complete_only'],
    ['logTreadBucketMs: 60000', 'logTreadBucketMs'],
  ])('refuses %s', (line, key) => {
    const load = () => loadConfig({ text: `simulator:\n  enabled: true\n  readings:\n    ${line}\n`, env: {} });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(`simulator.readings.${key}`);
  });
});

describe('edge-exporter simulate --config', () => {
  it('serves the readings (and seed, domains) of the config file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edge-sim-readings-'));
    try {
      const file = join(dir, 'config.yaml');
      writeFileSync(file, READINGS_YAML);
      let text = '';
      let listening: (url: string) => void = () => {};
      const url = new Promise<string>((resolve) => {
        listening = resolve;
      });
      const out = new Writable({
        write(chunk: Buffer, _enc, done) {
          text += chunk.toString();
          const m = /listening on (http:\/\/\S+)/.exec(text);
          if (m?.[1]) listening(m[1]);
          done();
        },
      });
      const controller = new AbortController();
      const done = simulateCommand(['--config', file, '--listen', '127.0.0.1:0'], out, controller.signal);
      const base = await url;
      const list = (path: string) => fetch(`${base}${path}`, {
        method: 'POST', headers: { authorization: 'Bearer sim-token', 'content-type': 'application/json' },
        body: JSON.stringify({ filters: [], searchHeader: { isActive: [] } }),
      });
      expect((await list('/cdn/domain/list')).status).toBe(404);
      expect(await (await list('/prod-api/cdn/domain/list')).json()).toMatchObject({ code: 200, total: 3 });
      const admin = (await (await fetch(`${base}/__admin/readings`)).json()) as { data: unknown };
      expect(admin.data).toEqual(FROM_YAML);
      controller.abort();
      await expect(done).resolves.toBe(0);
      expect(text).toContain('readings: logTreadBucketMs=300000, naiveTimestamps=true');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
