// The doctor against each alternative reading of the simulator (switched at
// run time through POST /__admin/readings): the check that reading
// contradicts says `differs` with the config key and value that fit it, the
// others do not, and the run exits 1.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CheckId, Setting } from '../../src/doctor/types.js';
import { doctorJson, startDoctorSim, type DoctorSim } from './doctor-helpers.js';

let d: DoctorSim;

beforeAll(async () => {
  d = await startDoctorSim();
});
afterAll(() => d.sim.close());
beforeEach(async () => {
  const res = await fetch(`${d.url}/__admin/readings`, { method: 'DELETE' });
  expect(res.status).toBe(200);
  d.sim.reset();
});

async function setReadings(readings: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${d.url}/__admin/readings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(readings) });
  expect(res.status).toBe(200);
}

const rows: Array<[string, Record<string, unknown>, CheckId, Setting[]]> = [
  ['coarse logTread buckets', { logTreadBucketMs: 3_600_000 }, 'bucket_width', [{ key: 'collectors.waf_trend.interval', value: '1h' }]],
  ['naive WAF timeStamps', { naiveTimestamps: true }, 'timestamp_offset', [{ key: 'upstream.timezone', value: '+08:00' }]],
  ['bandwidth in bytes per second', { bandwidthUnit: 'bytes_per_second' }, 'bandwidth_unit', [{ key: 'upstream.units.bandwidth', value: 'bytes_per_second' }]],
  ['totals off their points', { totalsSkew: 1.5 }, 'totals', []],
  ['ranges ignored', { ignoreRanges: true }, 'out_of_range', []],
  ['a clock 10 minutes behind', { clockOffsetMs: 600_000 }, 'clock_offset', [{ key: 'collectors.defaults.delay', value: '15m' }]],
  ['request times read in +09:00', { paramsZone: '+09:00' }, 'timezone', [{ key: 'upstream.timezone', value: '+09:00' }]],
  ['request times read in UTC', { paramsZone: '+00:00' }, 'timezone', [{ key: 'upstream.timezone', value: '+00:00' }]],
  ['operations 9-13 only without /prod-api', { pathForm: 'bare' }, 'path_prefix', [
    { key: 'upstream.paths.listLayer4Packages', value: '/cdn/packageRest/Layer4/list' },
    { key: 'upstream.paths.getPackageDetails', value: '/cdn/layer4/rules/getPackageDetails/{oid}' },
    { key: 'upstream.paths.listDomains', value: '/cdn/domain/list' },
  ]],
];

describe('doctor against an alternative reading', () => {
  it.each(rows)('%s: %j -> %s differs', async (_name, readings, id, set) => {
    await setReadings(readings);
    const r = await doctorJson(d);
    expect(r.code).toBe(1);
    expect(r.check(id)).toMatchObject({ verdict: 'differs', set });
    const others = r.report.checks.filter((c) => c.id !== id && c.verdict === 'differs').map((c) => c.id);
    expect(others).toEqual([]);
    expect(r.report.summary).toMatchObject({ differs: 1, refused: false, exitCode: 1 });
  });

  it('names what it saw: the width, the ratio, the shift, the lag and the spelling', async () => {
    const seen: string[] = [];
    for (const [, readings, id] of rows) {
      const res = await fetch(`${d.url}/__admin/readings`, { method: 'DELETE' });
      expect(res.status).toBe(200);
      await setReadings(readings);
      seen.push(...(await doctorJson(d)).check(id).observed);
    }
    const text = seen.join('\n');
    expect(text).toMatch(/logTread over 1d: 2[45] points spaced 1h, coarser than 5m/);
    expect(text).toMatch(/10 of 10 deny records of the last hour have no zone offset \(e\.g\. "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}"\)/);
    expect(text).toMatch(/traffic \/ \(bandwidth x seconds\) = 8\.00 \(median of 30 buckets\), what bytes_per_second would give/);
    expect(text).toMatch(/logTread over 30m: logTread\.count (\d+), points sum to \d+/);
    expect(text).toMatch(/access \(describeL7DataV2, 5m\): 5[5-7] of 60 points outside/);
    expect(text).toMatch(/the newest point starts 10m \(2 bucket\(s\)\) before our current bucket/);
    expect(text).toMatch(/6 points from \d{4}-\d\d-\d\d \d\d:00:00, -1h from where asked: the upstream reads beginTime\/endTime in \+09:00/);
    expect(text).toMatch(/\+8h from where asked: the upstream reads beginTime\/endTime in \+00:00/);
    expect(text).toContain('listDomains: /prod-api/cdn/domain/list HTTP 404, /cdn/domain/list answers');
  });
});
