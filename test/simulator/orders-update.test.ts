// Every per-item result code of update-unactivated and update-activated
// (modify), on a fixed clock: 2026-03-10 16:59:59 UTC+8.
import { describe, expect, it } from 'vitest';
import type { OrderRow } from '../../src/simulator/orders/rows.js';
import type { PlatformUser } from '../../src/simulator/orders/model.js';
import { data, lastStatus, must, newOrder, tz, world, type Case, type Fields, type World } from './orders-fixture.js';

const updateOf = (row: OrderRow, extra: Fields = {}): Fields => ({
  orderId: row.orderId, uid: row.uid, endMonthTime: '2026-06-30', isRenew: false,
  source: '移动', nickname: '新昵称', province: '川', ...extra,
});
const pending = (w: World): OrderRow => w.orderIn(0);

const updateCases: Case[] = [
  { code: 1, when: 'the order is not activated yet', items: (w) => [updateOf(pending(w))] },
  { code: 2, when: 'the uid is not the order uid', items: (w) => [updateOf(pending(w), { uid: w.orderIn(1).uid })] },
  { code: 3, when: 'the nickname is too long', items: (w) => [updateOf(pending(w), { nickname: 'n'.repeat(33) })] },
  { code: 4, when: 'endMonthTime is malformed', items: (w) => [updateOf(pending(w), { endMonthTime: '30-06-2026' })] },
  { code: 5, when: 'the end date is the activation date', items: (w) => [updateOf(pending(w), { endMonthTime: pending(w).startTime })] },
  { code: 6, when: 'the orderId is unknown', items: (w) => [updateOf(pending(w), { orderId: 'no-such-order' })] },
  { code: 6, when: 'the orderId is missing', items: (w) => [updateOf(pending(w), { orderId: undefined })] },
  { code: 7, when: 'the order is already activated', items: (w) => [updateOf(w.orderIn(1))] },
  { code: 8, when: 'the order has expired', items: (w) => [updateOf(w.orderIn(2))] },
  { code: 9, when: 'the carrier is unknown', items: (w) => [updateOf(pending(w), { source: '广电' })] },
  { code: 10, when: 'the uid is the reserved internal-error uid', items: (w) => [updateOf(pending(w), { uid: 'sim-internal-error' })] },
];

describe('updateHostAcceleratePackOrder result codes', () => {
  it.each(updateCases)('$code when $when', ({ code, items }) => {
    const w = world();
    expect(lastStatus(w.call('updateHostAcceleratePackOrder', { updateOrders: items(w) }))).toBe(code);
  });

  it('applies the update and answers with the documented fields', () => {
    const w = world();
    const row = pending(w);
    const [item] = data(w.call('updateHostAcceleratePackOrder', { updateOrders: [updateOf(row)] }));
    expect(item).toEqual({
      orderId: row.orderId, uid: row.uid, source: '移动', province: '川', isRenew: false, status: 1,
      startTime: row.startTime, endTime: '2026-06-30 23:59:59',
    });
    expect(w.rows().find((r) => r.orderId === row.orderId)).toMatchObject({
      source: '移动', province: '川', isRenew: false, renew: false, nickName: '新昵称', endTime: '2026-06-30 23:59:59',
    });
  });

  it('answers 5 when the new end date runs into a later binding of the same uid', () => {
    const w = world();
    const user = must(w.free[0]);
    const active = w.orderIn(1);
    const rebind = { orderId: active.orderId, oldUid: active.uid, newUid: user.uid, newPlatformId: user.platformId, executeTime: '2026-03-14' };
    expect(lastStatus(w.call('modifyHostAcceleratePackOrder', { modifyOrders: [rebind] }))).toBe(1);
    const created = data(w.call('createHostAcceleratePackOrder', { packOrder: [newOrder(user, { endMonthTime: '2026-03-13' })] }));
    const order = must(w.rows().find((r) => r.orderId === created[0]?.orderId));
    expect(lastStatus(w.call('updateHostAcceleratePackOrder', { updateOrders: [updateOf(order, { endMonthTime: '2026-03-14' })] }))).toBe(1);
    expect(lastStatus(w.call('updateHostAcceleratePackOrder', { updateOrders: [updateOf(order, { endMonthTime: '2026-03-15' })] }))).toBe(5);
  });
});

const modifyOf = (row: OrderRow, to: PlatformUser, extra: Fields = {}): Fields => ({
  orderId: row.orderId, oldUid: row.uid, newUid: to.uid, newPlatformId: to.platformId,
  executeTime: '2026-03-10', newNickname: '换绑主播', ...extra,
});
const rebind = (w: World, extra: Fields = {}): Fields => modifyOf(w.orderIn(1), must(w.free[0]), extra);

const modifyCases: Case[] = [
  { code: 1, when: 'an active order is rebound from today', items: (w) => [rebind(w)] },
  { code: 1, when: 'executeTime is the day before the end date', items: (w) => [rebind(w, { executeTime: dayBeforeEnd(w.orderIn(1)) })] },
  { code: 2, when: 'oldUid is not the order uid', items: (w) => [rebind(w, { oldUid: must(w.free[1]).uid })] },
  { code: 3, when: 'newPlatformId belongs to another uid', items: (w) => [rebind(w, { newPlatformId: must(w.free[1]).platformId })] },
  { code: 3, when: 'newUid is missing', items: (w) => [rebind(w, { newUid: undefined })] },
  { code: 4, when: 'the new nickname is too long', items: (w) => [rebind(w, { newNickname: '名'.repeat(33) })] },
  { code: 4, when: 'the new nickname is a boolean', items: (w) => [rebind(w, { newNickname: true })] },
  { code: 5, when: 'the order does not exist', items: (w) => [rebind(w, { orderId: 'no-such-order' })] },
  { code: 6, when: 'an accepted update is still pending', items: (w) => [rebind(w), modifyOf(w.orderIn(1), must(w.free[1]))] },
  { code: 7, when: 'the order is not activated yet', items: (w) => [modifyOf(w.orderIn(0), must(w.free[0]))] },
  { code: 7, when: 'the order has expired', items: (w) => [modifyOf(w.orderIn(2), must(w.free[0]))] },
  { code: 8, when: 'executeTime is yesterday', items: (w) => [rebind(w, { executeTime: '2026-03-09' })] },
  { code: 8, when: 'executeTime has a time of day', items: (w) => [rebind(w, { executeTime: '2026-03-10 00:00:00' })] },
  { code: 8, when: 'executeTime uses slashes', items: (w) => [rebind(w, { executeTime: '2026/03/10' })] },
  { code: 8, when: 'executeTime is the end date (effective only after expiry)', items: (w) => [rebind(w, { executeTime: w.orderIn(1).endTime.slice(0, 10) })] },
  { code: 9, when: 'the update limit (here 0) is reached', max: 0, items: (w) => [rebind(w)] },
  { code: 10, when: 'newUid is the reserved internal-error uid', items: (w) => [rebind(w, { newUid: 'sim-internal-error' })] },
];

function dayBeforeEnd(row: OrderRow): string {
  return tz.formatDate(tz.parseDate(row.endTime.slice(0, 10)) - 86_400_000);
}

describe('modifyHostAcceleratePackOrder result codes', () => {
  it.each(modifyCases)('$code when $when', ({ code, items, max }) => {
    const w = world(max);
    expect(lastStatus(w.call('modifyHostAcceleratePackOrder', { modifyOrders: items(w) }))).toBe(code);
  });

  it('answers each item with orderId, status and executeTime', () => {
    const w = world();
    const item = rebind(w);
    expect(data(w.call('modifyHostAcceleratePackOrder', { modifyOrders: [item, { ...item, orderId: 'x' }] }))).toEqual([
      { orderId: item.orderId, status: 1, executeTime: '2026-03-10' },
      { orderId: 'x', status: 5, executeTime: '2026-03-10' },
    ]);
  });
});

