// `edge-exporter call` with an invalid body, for every operation: refused
// locally (exit 2, the field named, nothing on stdout) and nothing sent to the
// upstream. Each body is one of test/contract/requests.ts's valid requests with
// one field broken, so the field list in the message must be exactly that one.
// Request schemas are loose (undocumented keys pass through, see
// src/api/schemas/common.ts), so an unknown field is not a row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPERATION_NAMES, type OperationName } from '../../src/api/index.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { T0 } from '../contract/harness.js';
import { validRequests, type ValidRequests } from '../contract/requests.js';
import { cli } from './helpers.js';

const TOKEN = 'sim-token-call-invalid-93a';

interface Row {
  /** The valid request of the operation with one field broken. */
  body: (valid: ValidRequests) => unknown;
  /** The dotted path the message names; `(body)` for the body as a whole. */
  field: string;
  message: RegExp;
}

const ONE_OF = /^Invalid option: expected one of /;
const DATE_TIME = /^expected a valid time in the form yyyy-MM-dd HH:mm:ss$/;

const ROWS: Readonly<Record<OperationName, readonly Row[]>> = {
  describeLogV2: [
    { body: (v) => ({ ...v.describeLogV2, action: [{ metricName: 'log' }] }), field: 'action.0.metricName', message: ONE_OF },
    { body: (v) => ({ ...v.describeLogV2, action: [] }), field: 'action', message: /^at least one action item is required$/ },
    { body: (v) => ({ ...v.describeLogV2, params: { ...v.describeLogV2.params, beginTime: '2026-03-02T09:00:00' } }), field: 'params.beginTime', message: DATE_TIME },
  ],
  batchUpdateDomainCertInfo: [
    { body: (v) => ({ ...v.batchUpdateDomainCertInfo, protocol: 2 }), field: 'protocol', message: /^Invalid option: expected one of 0\|1$/ },
    { body: (v) => ({ ...v.batchUpdateDomainCertInfo, domainIdList: [] }), field: 'domainIdList', message: /^at least one domain ID is required$/ },
    { body: (v) => ({ ...v.batchUpdateDomainCertInfo, certId: undefined }), field: 'certId', message: /^certId is required when source is 1/ },
  ],
  getPackages: [{ body: () => [], field: '(body)', message: /^Invalid input: expected object, received array$/ }],
  describeL7UsageData: [
    { body: (v) => ({ ...v.describeL7UsageData, oids: 'all' }), field: 'oids', message: /^Invalid input: expected array, received string$/ },
    { body: (v) => ({ ...v.describeL7UsageData, action: [{ metricName: 'requestTrend' }] }), field: 'action.0.metricName', message: ONE_OF },
  ],
  describeL7DataV2: [
    {
      body: (v) => ({ ...v.describeL7DataV2, params: { beginTime: '2026-03-02 10:00:00', endTime: '2026-03-02 09:00:00' } }),
      field: 'params.endTime', message: /^endTime must not be earlier than beginTime$/,
    },
  ],
  describeL7Data: [
    { body: (v) => ({ ...v.describeL7Data, terminal: undefined }), field: 'terminal', message: /^Invalid input: expected string, received undefined$/ },
    { body: (v) => ({ ...v.describeL7Data, pageSize: 0 }), field: 'pageSize', message: /^Too small: expected number to be >=1$/ },
  ],
  describeL7MostData: [{ body: (v) => ({ ...v.describeL7MostData, mostDimension: 'bytes' }), field: 'mostDimension', message: ONE_OF }],
  describeL7CCAttack: [
    { body: (v) => ({ ...v.describeL7CCAttack, params: { beginTime: '2026-02-31 00:00:00', endTime: '2026-03-01 00:00:00' } }), field: 'params.beginTime', message: DATE_TIME },
  ],
  listLayer4Packages: [
    { body: (v) => ({ ...v.listLayer4Packages, pageNum: undefined }), field: 'pageNum', message: /^Invalid input: expected number, received undefined$/ },
    { body: (v) => ({ ...v.listLayer4Packages, searchHeader: { activate: ['9'] } }), field: 'searchHeader.activate.0', message: ONE_OF },
  ],
  getPackageDetails: [{ body: () => ({ oid: '' }), field: 'oid', message: /^must not be empty$/ }],
  insertRule: [
    { body: (v) => ({ ...v.insertRule, rules: [{ ...v.insertRule.rules?.[0], protocolType: 'sctp' }] }), field: 'rules.0.protocolType', message: ONE_OF },
  ],
  updateRule: [
    { body: (v) => ({ ...v.updateRule, ruleId: undefined }), field: 'ruleId', message: /^Invalid input: expected number, received undefined$/ },
    { body: (v) => ({ ...v.updateRule, limitConn: 'none' }), field: 'limitConn', message: /^expected an int32 integer or ""$/ },
  ],
  listDomains: [
    { body: (v) => ({ ...v.listDomains, searchHeader: { isActive: ['3'] } }), field: 'searchHeader.isActive.0', message: ONE_OF },
    { body: (v) => ({ ...v.listDomains, filters: [{ label: 'domainName' }] }), field: 'filters.0.value', message: /^Invalid input: expected array, received undefined$/ },
  ],
  describeHosting: [{ body: (v) => ({ ...v.describeHosting, searchHeader: { certEndDay: '14' } }), field: 'searchHeader.certEndDay', message: ONE_OF }],
  getCacheRecordList: [{ body: (v) => ({ ...v.getCacheRecordList, type: 1 }), field: 'type', message: ONE_OF }],
  pushUrlsCache: [
    { body: (v) => ({ ...v.pushUrlsCache, area: 'asia' }), field: 'area', message: ONE_OF },
    { body: (v) => ({ ...v.pushUrlsCache, urls: [] }), field: 'urls', message: /^at least one URL is required$/ },
  ],
  createHostAcceleratePackOrder: [
    {
      body: (v) => ({ packOrder: [{ ...v.createHostAcceleratePackOrder.packOrder[0], endMonthTime: '2026/12/31' }] }),
      field: 'packOrder.0.endMonthTime', message: /^expected a valid time in the form yyyy-MM-dd HH:mm:ss or yyyy-MM-dd$/,
    },
    { body: (v) => ({ packOrder: [{ ...v.createHostAcceleratePackOrder.packOrder[0], source: 'China Telecom' }] }), field: 'packOrder.0.source', message: ONE_OF },
  ],
  updateHostAcceleratePackOrder: [
    {
      body: (v) => ({ updateOrders: [{ ...v.updateHostAcceleratePackOrder.updateOrders[0], isRenew: 'false' }] }),
      field: 'updateOrders.0.isRenew', message: /^Invalid input: expected boolean, received string$/,
    },
  ],
  modifyHostAcceleratePackOrder: [
    {
      body: (v) => ({ modifyOrders: [{ ...v.modifyHostAcceleratePackOrder.modifyOrders[0], executeTime: '2026-03-05 00:00:00' }] }),
      field: 'modifyOrders.0.executeTime', message: /^expected a valid date in the form yyyy-MM-dd$/,
    },
  ],
  describeHostAcceleratePackOrder: [
    { body: (v) => ({ ...v.describeHostAcceleratePackOrder, startTime: '2026-03-05' }), field: 'startTime', message: DATE_TIME },
    {
      body: (v) => ({ ...v.describeHostAcceleratePackOrder, startTime: '2026-03-05 00:00:00', endTime: '2026-03-04 00:00:00' }),
      field: 'endTime', message: /^endTime must not be earlier than startTime$/,
    },
  ],
  describeVQUserData: [
    { body: (v) => ({ ...v.describeVQUserData, filters: [{ label: 'orderId', value: ['x'] }] }), field: 'filters.0.label', message: ONE_OF },
    { body: (v) => ({ ...v.describeVQUserData, pageSize: 1.5 }), field: 'pageSize', message: /^Invalid input: expected int, received number$/ },
  ],
};

let sim: Simulator;
let env: Record<string, string>;
let valid: ValidRequests;
let dir: string;

beforeAll(async () => {
  sim = createSimulator({ clock: { mode: 'fixed', start: T0 }, tokens: [{ token: TOKEN, permissions: '*' }] });
  const { url } = await sim.listen('127.0.0.1', 0);
  env = { EDGE_API_URL: url, EDGE_API_TOKEN: TOKEN };
  valid = validRequests(sim.world);
  dir = mkdtempSync(join(tmpdir(), 'edge-call-invalid-'));
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The `path: message` pairs of a ValidationError on stderr; fails unless stderr is exactly that one line. */
function issues(operation: OperationName, stderr: string): Array<[string, string]> {
  const prefix = `edge-exporter: ${operation}: invalid request: `;
  if (!stderr.startsWith(prefix) || !stderr.endsWith('\n') || stderr.indexOf('\n') !== stderr.length - 1) {
    throw new Error(`stderr is not one invalid-request line:\n${stderr}`);
  }
  return stderr.slice(prefix.length, -1).split('; ').map((issue) => {
    const colon = issue.indexOf(': ');
    return [issue.slice(0, colon), issue.slice(colon + 2)];
  });
}

describe('call with an invalid body', () => {
  it.each(OPERATION_NAMES.map((op) => [op] as const))('%s: exit 2, the field named, nothing sent', async (operation) => {
    const rows = ROWS[operation] as readonly Row[] | undefined;
    expect(rows?.length, `no invalid-body row for ${operation}`).toBeGreaterThan(0);
    for (const row of rows ?? []) {
      const r = await cli(['call', operation, '--body', JSON.stringify(row.body(valid))], env);
      expect(r.code, r.err).toBe(2);
      expect(r.out).toBe('');
      const found = issues(operation, r.err);
      expect(found.map(([field]) => field)).toEqual([row.field]);
      expect(found[0]?.[1]).toMatch(row.message);
      expect(r.err).not.toContain(TOKEN);
      expect(sim.requestCounts()).toEqual({});
    }
  });

  it('a --body-file that is not JSON: exit 2, nothing sent', async () => {
    const file = join(dir, 'body.json');
    writeFileSync(file, "{ urls: ['https://a.example.com/x.js'] }");
    const r = await cli(['call', 'pushUrlsCache', '--body-file', file], env);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^edge-exporter: the request body is not valid JSON: /);
    expect(sim.requestCounts()).toEqual({});
  });

  it('a --body-file that does not exist: exit 2 naming it, nothing sent', async () => {
    const file = join(dir, 'missing.json');
    const r = await cli(['call', 'pushUrlsCache', '--body-file', file], env);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(new RegExp(`^edge-exporter: cannot read --body-file ${file}: no such file or directory \\(ENOENT\\)\n`));
    expect(sim.requestCounts()).toEqual({});
  });

  it('while each valid request reaches the simulator through the same command line', async () => {
    for (const operation of ['getPackages', 'listDomains', 'describeHostAcceleratePackOrder'] as const) {
      const r = await cli(['call', operation, '--body', JSON.stringify(valid[operation])], env);
      expect(r.code, r.err).toBe(0);
      expect(sim.requestCounts()[operation]).toBe(1);
    }
    sim.reset();
  });
});
