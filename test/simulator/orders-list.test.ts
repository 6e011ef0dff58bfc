// Listing orders (paging, filters, derived status) and querying live-quality
// reports (one value fuzzy, several exact), on a fixed clock.
import { describe, expect, it } from 'vitest';
import type { OperationName } from '../../src/api/operations.js';
import { platformClock } from '../../src/api/time.js';
import { createOrderBook, orderHandlers } from '../../src/simulator/orders/index.js';
import { CARRIERS, PROVINCES } from '../../src/simulator/orders/constants.js';
import type { OrderRow } from '../../src/simulator/orders/rows.js';
import type { QualityReport } from '../../src/simulator/orders/model.js';
import type { SimResponse } from '../../src/simulator/types.js';

const tz = platformClock('+08:00');
const at = (text: string): number => tz.parseDateTime(text);
const NOW = at('2026-03-10 16:59:59');
const DATETIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

function world(seed = 3) {
  const book = createOrderBook({ seed, now: at('2026-03-10 09:00:00'), tz, users: 24 });
  const handlers = orderHandlers(book, tz);
  const call = (operation: OperationName, body: unknown, now = NOW): SimResponse =>
    must(handlers[operation])({ operation, body, pathParams: {}, token: 'test', now });
  const list = (body: Record<string, unknown>, now = NOW) =>
    call('describeHostAcceleratePackOrder', { pageNum: 1, pageSize: 100, ...body }, now).body as { total: number; rows: OrderRow[] };
  const reports = (body: unknown) => call('describeVQUserData', body).body as { total: number; rows: Array<Record<string, unknown>> };
  return { book, call, list, reports };
}

function must<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('fixture missing');
  return value;
}

describe('describeHostAcceleratePackOrder', () => {
  it('lists seeded orders in every status with every documented field', () => {
    const { list } = world();
    const { total, rows } = list({});
    expect(total).toBe(18);
    expect(new Set(rows.map((r) => r.status))).toEqual(new Set([0, 1, 2]));
    for (const r of rows) {
      expect(Object.keys(r).sort()).toEqual(['endTime', 'executeTime', 'isRenew', 'message', 'nickName', 'orderId', 'platformId', 'province', 'renew', 'source', 'startTime', 'status', 'uid']);
      expect(r).toMatchObject({ startTime: expect.stringMatching(DATETIME), endTime: expect.stringMatching(DATETIME), renew: r.isRenew, executeTime: null, message: null });
      expect(CARRIERS).toContain(r.source);
      expect(PROVINCES).toContain(r.province);
    }
    expect(rows.some((r) => r.nickName === null) && rows.some((r) => typeof r.nickName === 'string')).toBe(true);
  });

  it('pages newest first, new orders on top', () => {
    const { book, call, list } = world();
    const users = book.users().slice(-2);
    for (const u of users) {
      call('createHostAcceleratePackOrder', { packOrder: [{ uid: u.uid, platformId: u.platformId, source: '联通', endMonthTime: '2026-05-31', isRenew: true }] });
    }
    const all = list({}).rows.map((r) => r.orderId);
    expect(all.slice(0, 2)).toEqual(list({ uid: users[1]?.uid }).rows.concat(list({ uid: users[0]?.uid }).rows).map((r) => r.orderId));
    const pages = [1, 2, 3, 4].map((pageNum) => list({ pageNum, pageSize: 6 }));
    expect(pages.map((p) => p.rows.length)).toEqual([6, 6, 6, 2]);
    expect(pages.every((p) => p.total === 20)).toBe(true);
    expect(pages.flatMap((p) => p.rows.map((r) => r.orderId))).toEqual(all);
    expect(list({ pageNum: 9, pageSize: 6 }).rows).toEqual([]);
  });

  it.each(CARRIERS)('filters by carrier %s', (source) => {
    const { list } = world();
    const { total, rows } = list({ source });
    expect(total).toBe(list({}).rows.filter((r) => r.source === source).length);
    expect(rows.every((r) => r.source === source)).toBe(true);
  });

  it('filters by uid', () => {
    const { list } = world();
    const uid = must(list({}).rows[0]).uid;
    expect(list({ uid }).rows.map((r) => r.uid)).toEqual([uid]);
    expect(list({ uid: uid.slice(0, 3) }).total).toBe(0);
  });

  it.each([
    ['today only: the active orders', { startTime: '2026-03-10 00:00:00', endTime: '2026-03-10 23:59:59' }, [1]],
    ['from tomorrow: active and not yet activated', { startTime: '2026-03-11 00:00:00' }, [0, 1]],
    ['until a month ago: expired only', { endTime: '2026-02-10 00:00:00' }, [2]],
  ])('filters by overlap with a time range (%s)', (_, range, statuses) => {
    const { list } = world();
    const expected = list({}).rows.filter((r) => statuses.includes(r.status)).map((r) => r.orderId);
    expect(list(range).rows.map((r) => r.orderId).sort()).toEqual(expected.sort());
  });

  it('derives status from the clock', () => {
    const { list } = world();
    const later = list({}, at('2026-06-30 00:00:00')).rows;
    expect(later.every((r) => r.status === 2)).toBe(true);
  });

  it('is deterministic per seed', () => {
    expect(world(5).list({}).rows).toEqual(world(5).list({}).rows);
    expect(world(6).list({}).rows).not.toEqual(world(5).list({}).rows);
  });

  it.each([
    ['pageNum missing', { pageSize: 10 }],
    ['pageSize zero', { pageNum: 1, pageSize: 0 }],
    ['pageNum fractional', { pageNum: 1.5, pageSize: 10 }],
    ['startTime malformed', { pageNum: 1, pageSize: 10, startTime: '2026-03-10' }],
    ['startTime after endTime', { pageNum: 1, pageSize: 10, startTime: '2026-03-11 00:00:00', endTime: '2026-03-10 00:00:00' }],
    ['uid not a string', { pageNum: 1, pageSize: 10, uid: 5 }],
    ['body not an object', 'x'],
  ])('answers 400 when %s', (_, body) => {
    expect(world().call('describeHostAcceleratePackOrder', body)).toEqual({ status: 400, body: { code: 400, msg: expect.any(String) } });
  });
});

describe('describeVQUserData', () => {
  const newestFirst = (rs: readonly QualityReport[]): QualityReport[] =>
    [...rs].sort((a, b) => b.createdAt - a.createdAt || b.dataId - a.dataId);
  const ids = (rows: Array<Record<string, unknown>>): unknown[] => rows.map((r) => r.dataId);

  it('pages 10 at a time by default, newest first, with the documented fields', () => {
    const { book, reports } = world();
    const { total, rows } = reports({});
    expect(total).toBe(book.reports().length);
    expect(ids(rows)).toEqual(newestFirst(book.reports()).slice(0, 10).map((r) => r.dataId));
    expect(rows[0]).toEqual({
      dataId: expect.any(Number), uid: expect.any(String), image: expect.any(String), message: expect.any(String),
      date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), createTime: expect.stringMatching(DATETIME),
    });
    expect(ids(reports({ pageNum: 2, pageSize: 3 }).rows)).toEqual(newestFirst(book.reports()).slice(3, 6).map((r) => r.dataId));
  });

  it.each([
    ['one uid value is fuzzy', 'uid', (r: QualityReport[]) => [must(r[0]).uid.slice(0, 4)], (r: QualityReport, v: string[]) => r.uid.includes(must(v[0]))],
    ['several uid values are exact', 'uid', (r: QualityReport[]) => [must(r[0]).uid, must(r[5]).uid, '999'], (r: QualityReport, v: string[]) => v.includes(r.uid)],
    ['one dataId value is fuzzy', 'dataId', (r: QualityReport[]) => [String(must(r[0]).dataId).slice(0, 2)], (r: QualityReport, v: string[]) => String(r.dataId).includes(must(v[0]))],
    ['several dataId values are exact', 'dataId', (r: QualityReport[]) => [String(must(r[0]).dataId), String(must(r[1]).dataId)], (r: QualityReport, v: string[]) => v.includes(String(r.dataId))],
  ])('%s', (_, label, pick, keep) => {
    const { book, reports } = world();
    const value = pick([...book.reports()]);
    const expected = newestFirst(book.reports().filter((r) => keep(r, value)));
    const res = reports({ pageSize: 100, filters: [{ label, value }] });
    expect(res.total).toBe(expected.length);
    expect(expected.length).toBeGreaterThan(0);
    expect(ids(res.rows)).toEqual(expected.map((r) => r.dataId));
  });

  it('does not fuzzy-match when several values are sent, and ANDs several filters', () => {
    const { book, reports } = world();
    const [first] = book.reports();
    const { uid, dataId } = must(first);
    expect(reports({ filters: [{ label: 'uid', value: [uid.slice(0, 4), 'none'] }] }).total).toBe(0);
    expect(ids(reports({ filters: [{ label: 'uid', value: [uid] }, { label: 'dataId', value: [String(dataId), 'x'] }] }).rows)).toEqual([dataId]);
    expect(reports({ filters: [{ label: 'uid', value: [] }] }).total).toBe(book.reports().length);
  });

  it.each([
    ['an unknown label', { filters: [{ label: 'image', value: ['x'] }] }],
    ['a value that is not a string array', { filters: [{ label: 'uid', value: 'x' }] }],
    ['pageSize zero', { pageSize: 0 }],
    ['a body that is not an object', null],
  ])('answers 400 for %s', (_, body) => {
    expect(world().call('describeVQUserData', body)).toEqual({ status: 400, body: { code: 400, msg: expect.any(String) } });
  });
});
