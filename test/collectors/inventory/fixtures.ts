// Hand-written list rows that follow the document's field tables, and helpers
// to read conversions back. Tests parse these bodies with the client's
// response schemas, so string-or-integer fields arrive as the collector sees them.
import { platformClock } from '../../../src/api/index.js';
import type { Sample } from '../../../src/collectors/collector.js';
import * as M from '../../../src/collectors/inventory/metrics.js';
import type { Converted } from '../../../src/collectors/inventory/sample-set.js';

export const tz = platformClock('+08:00');
/** Unix seconds of a UTC+8 wall-clock time, computed without src/api/time.ts. */
export const secs = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0): number => Date.UTC(y, mo - 1, d, h - 8, mi, s) / 1000;

export function family(out: Converted, def: M.StateSetDef | { name: string }): readonly Sample[] {
  const samples = out.families.get(def.name);
  if (samples === undefined) throw new Error(`${def.name} missing from the conversion`);
  return samples;
}

/** state label value -> sample value, for the series whose `key` label is `id`. */
export function states(out: Converted, def: M.StateSetDef, key: string, id: string): Record<string, number> {
  return Object.fromEntries(family(out, def).filter((s) => s.labels[key] === id).map((s) => [s.labels[def.stateLabel], s.value]));
}

/** The expected state set: every documented state 0, `current` 1 (plus unknown=1 when undocumented). */
export function expectedStates(def: M.StateSetDef, current: string): Record<string, number> {
  const out: Record<string, number> = Object.fromEntries(def.states.map((s) => [s.state, s.state === current ? 1 : 0]));
  if (current === M.UNKNOWN_STATE) out[M.UNKNOWN_STATE] = 1;
  return out;
}

export const l4Row = (over: Record<string, unknown>) => ({
  ctime: 1700000000, isTest: 1, oid: 'L4-1', packageName: '四层套餐', ruleCnt: 3, remark: '', activate: 1,
  mday: '2026-04-01 00:00:00', lastday: 30, alias: 'l4-alias', ...over,
});
export const domainRow = (over: Record<string, unknown>) => ({
  id: 1, sslsupport: '1', domainName: 'www.example.com', ip: '198.51.100.1', port: '443', cNamePre: 'www-example-com',
  cNameSuf: '.cdn.example.net', doid: 'pkg-1', isActive: '1', customerRemark: null, alias: 'site', coreId: 'c', waf: '1',
  stopTime: '', updateTime: '2026-01-01 00:00:00', certEndTime: null, wafInternalRulesList: null, ...over,
});
export const certRow = (over: Record<string, unknown>) => ({
  certId: 7001, status: 3, dnsName: 'a.example.com', alias: 'cert-a', sslcrt: null, subjectDN: '*.example.com',
  issuerDN: 'Some CA', beginTime: null, endTime: '2026-06-30 12:00:00', createTime: '2026-01-01 00:00:00', ...over,
});
export const orderRow = (over: Record<string, unknown>) => ({
  uid: '1001', platformId: 'p-1', startTime: '2026-03-03 00:00:00', endTime: '2026-04-30 23:59:59', isRenew: true,
  status: 1, province: '广东', source: '电信', nickName: null, message: null, orderId: '20260302000001', executeTime: null, ...over,
});
export const paged = (rows: unknown[] | null, total?: number | string) => ({ code: 200, msg: 'ok', rows, ...(total === undefined ? {} : { total }) });
