// Every per-item result code of create, and the request-level errors of the
// batch operations, on a fixed clock: 2026-03-10 16:59:59 UTC+8, so a create
// activates at 2026-03-11 00:00. Update and modify codes: orders-update.test.ts.
import { describe, expect, it } from 'vitest';
import type { OperationName } from '../../src/api/operations.js';
import { CARRIERS } from '../../src/simulator/orders/constants.js';
import type { OrderRow } from '../../src/simulator/orders/rows.js';
import type { PlatformUser } from '../../src/simulator/orders/model.js';
import { data, lastStatus, must, newOrder, world, type Case, type World } from './orders-fixture.js';

const createCases: Case[] = [
  { code: 1, when: 'a bound pair with valid fields', items: (w) => [newOrder(must(w.free[0]))] },
  { code: 1, when: 'nickname and province are omitted', items: (w) => [newOrder(must(w.free[0]), { nickname: undefined, province: null })] },
  { code: 1, when: 'the nickname has exactly 32 characters', items: (w) => [newOrder(must(w.free[0]), { nickname: '字'.repeat(32) })] },
  { code: 2, when: 'the platform ID belongs to another uid', items: (w) => [newOrder(must(w.free[0]), { platformId: must(w.free[1]).platformId })] },
  { code: 2, when: 'the uid is unknown', items: (w) => [newOrder(must(w.free[0]), { uid: 'nobody' })] },
  { code: 2, when: 'platformId is missing', items: (w) => [newOrder(must(w.free[0]), { platformId: undefined })] },
  { code: 3, when: 'the nickname has 33 characters', items: (w) => [newOrder(must(w.free[0]), { nickname: 'a'.repeat(33) })] },
  { code: 3, when: 'the nickname is blank', items: (w) => [newOrder(must(w.free[0]), { nickname: '  ' })] },
  { code: 3, when: 'the nickname holds a control character', items: (w) => [newOrder(must(w.free[0]), { nickname: 'a\nb' })] },
  { code: 3, when: 'the nickname is not a string', items: (w) => [newOrder(must(w.free[0]), { nickname: 12 })] },
  { code: 4, when: 'endMonthTime uses slashes', items: (w) => [newOrder(must(w.free[0]), { endMonthTime: '2026/04/30' })] },
  { code: 4, when: 'endMonthTime is not a calendar date', items: (w) => [newOrder(must(w.free[0]), { endMonthTime: '2026-02-30' })] },
  { code: 4, when: 'endMonthTime is missing', items: (w) => [newOrder(must(w.free[0]), { endMonthTime: undefined })] },
  { code: 5, when: 'the end date is the activation date', items: (w) => [newOrder(must(w.free[0]), { endMonthTime: '2026-03-11' })] },
  { code: 5, when: 'the end date is before activation', items: (w) => [newOrder(must(w.free[0]), { endMonthTime: '2026-03-10 23:00:00' })] },
  { code: 6, when: 'the uid already has an active order', items: (w) => [newOrder(userOf(w, w.orderIn(1)))] },
  { code: 6, when: 'the uid has an unactivated order, on another carrier', items: (w) => [newOrder(userOf(w, w.orderIn(0)), { source: otherCarrier(w.orderIn(0)) })] },
  { code: 6, when: 'an earlier item of the same batch books the uid', items: (w) => [newOrder(must(w.free[0])), newOrder(must(w.free[0]))] },
  { code: 7, when: 'the province is unknown', items: (w) => [newOrder(must(w.free[0]), { province: 'XX' })] },
  { code: 7, when: 'the province is a full name', items: (w) => [newOrder(must(w.free[0]), { province: '广东' })] },
  { code: 8, when: 'the carrier is unknown', items: (w) => [newOrder(must(w.free[0]), { source: '铁通' })] },
  { code: 8, when: 'the carrier is missing', items: (w) => [newOrder(must(w.free[0]), { source: undefined })] },
  { code: 9, when: 'the uid is the reserved internal-error uid', items: (w) => [newOrder(must(w.free[0]), { uid: 'sim-internal-error' })] },
  { code: 3, when: 'nickname and carrier are both wrong (lower code wins)', items: (w) => [newOrder(must(w.free[0]), { nickname: '', source: 'x' })] },
];

function otherCarrier(row: OrderRow): string {
  return must(CARRIERS.find((c) => c !== row.source));
}

function userOf(w: World, row: OrderRow): PlatformUser {
  return must(w.book.users().find((u) => u.uid === row.uid));
}

describe('createHostAcceleratePackOrder result codes', () => {
  it.each(createCases)('$code when $when', ({ code, items, max }) => {
    const w = world(max);
    expect(lastStatus(w.call('createHostAcceleratePackOrder', { packOrder: items(w) }))).toBe(code);
  });

  it('answers a created item with the documented fields', () => {
    const w = world();
    const user = must(w.free[0]);
    const [item] = data(w.call('createHostAcceleratePackOrder', { packOrder: [newOrder(user, { endMonthTime: '2026-04-30' })] }));
    expect(item).toEqual({
      uid: user.uid, platformId: user.platformId, source: '电信', province: '粤', isRenew: true, status: 1,
      orderId: expect.stringMatching(/^20260310\d{6}$/), startTime: '2026-03-11 00:00:00', endTime: '2026-04-30 23:59:59',
    });
    expect(w.rows().find((r) => r.orderId === item?.orderId)).toMatchObject({ status: 0, nickName: '测试主播', executeTime: null });
  });

  it('shows the user nickname when none is sent, and stores nothing for a failed item', () => {
    const w = world();
    const user = must(w.free.find((u) => u.nickName !== null));
    data(w.call('createHostAcceleratePackOrder', { packOrder: [newOrder(user, { nickname: undefined, province: undefined })] }));
    data(w.call('createHostAcceleratePackOrder', { packOrder: [newOrder(must(w.free.at(-1)), { source: '铁通' })] }));
    const mine = w.rows().filter((r) => r.uid === user.uid || r.uid === w.free.at(-1)?.uid);
    expect(mine).toEqual([expect.objectContaining({ uid: user.uid, nickName: user.nickName, province: '' })]);
  });
});

describe('request-level errors', () => {
  it.each<[OperationName, unknown]>([
    ['createHostAcceleratePackOrder', null],
    ['createHostAcceleratePackOrder', []],
    ['createHostAcceleratePackOrder', {}],
    ['createHostAcceleratePackOrder', { packOrder: [1] }],
    ['createHostAcceleratePackOrder', { packOrder: [{ uid: 'a' }] }],
    ['updateHostAcceleratePackOrder', { updateOrders: [{ isRenew: true, province: 3 }] }],
    ['modifyHostAcceleratePackOrder', { modifyOrders: 'x' }],
  ])('%s rejects %j with 400 and writes nothing', (operation, body) => {
    const w = world();
    const before = w.book.orders().length;
    expect(w.call(operation, body)).toEqual({ status: 400, body: { code: 400, msg: expect.any(String) } });
    expect(w.book.orders()).toHaveLength(before);
  });

  it('answers an empty batch with empty data', () => {
    expect(data(world().call('createHostAcceleratePackOrder', { packOrder: [] }))).toEqual([]);
  });
});
