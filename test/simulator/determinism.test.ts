import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationName } from '../../src/api/operations.js';
import { HOUR, params, startSim, T0, type Harness } from './helpers.js';

const range = params(T0 - 6 * HOUR, T0);
const CALLS: Array<[OperationName, unknown]> = [
  ['describeLogV2', { action: [{ metricName: 'logs', pageSize: 20 }, { metricName: 'logTread' }], otherFilter: [], params: range }],
  ['getPackages', {}],
  ['describeL7UsageData', { interval: '5m', oids: [], params: range, action: [{ metricName: 'trafficTrend' }] }],
  ['describeL7DataV2', { interval: '1h', domains: [], params: range, action: [{ metricName: 'statusCodeTrend' }, { metricName: 'bandwidthTrend' }] }],
  ['describeL7MostData', { interval: '1h', params: range, pageNum: 1, pageSize: 20, mostDimension: 'requestCount', otherFilter: [], action: [{ metricName: 'url' }] }],
  ['describeL7CCAttack', { interval: '1h', params: range }],
  ['listLayer4Packages', { pageNum: 1, pageSize: 20 }],
  ['listDomains', { filters: [], searchHeader: { isActive: [] }, pageSize: 50 }],
  ['describeHosting', { pageNum: 1, pageSize: 50 }],
  ['getCacheRecordList', { type: '1', pageNum: 1, pageSize: 50, params: params(T0 - 10 * 24 * HOUR, T0) }],
];

let a: Harness;
let b: Harness;
let c: Harness;
beforeAll(async () => {
  [a, b, c] = await Promise.all([startSim({ seed: 5 }), startSim({ seed: 5 }), startSim({ seed: 6 })]);
});
afterAll(() => Promise.all([a.close(), b.close(), c.close()]));

describe('determinism', () => {
  it.each(CALLS)('%s answers identically for the same seed', async (op, body) => {
    const [x, y] = await Promise.all([a.call(op, body), b.call(op, body)]);
    expect(x.status).toBe(200);
    expect(x.body.code).toBe(200);
    expect(JSON.stringify(y.body)).toBe(JSON.stringify(x.body));
  });

  it.each(CALLS.filter(([op]) => op !== 'getPackages'))('%s differs for another seed', async (op, body) => {
    const [x, z] = await Promise.all([a.call(op, body), c.call(op, body)]);
    expect(JSON.stringify(z.body)).not.toBe(JSON.stringify(x.body));
  });
});
