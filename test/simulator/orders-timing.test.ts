// The four activation timing rules, plus expiry and the update limit, by
// moving the request clock (`now`) across the instants where they change.
import { describe, expect, it } from 'vitest';
import type { OperationName } from '../../src/api/operations.js';
import { platformClock } from '../../src/api/time.js';
import { createOrderBook, orderHandlers } from '../../src/simulator/orders/index.js';
import type { OrderRow } from '../../src/simulator/orders/rows.js';
import type { PlatformUser } from '../../src/simulator/orders/model.js';
import type { SimResponse } from '../../src/simulator/types.js';

const tz = platformClock('+08:00');
const at = (text: string): number => tz.parseDateTime(text);
type Fields = Record<string, unknown>;

function world(maxModifications?: number) {
  const book = createOrderBook({ seed: 11, now: at('2026-03-10 09:00:00'), tz, maxModifications });
  const handlers = orderHandlers(book, tz);
  const call = (operation: OperationName, body: unknown, now: string): Fields[] => {
    const handler = must(handlers[operation]);
    const res: SimResponse = handler({ operation, body, pathParams: {}, token: 'test', now: at(now) });
    expect(res.status).toBe(200);
    return (res.body as { data: Fields[] }).data;
  };
  const booked = new Set(book.orders().map((o) => o.identity.uid));
  const [a, b, c] = book.users().filter((u) => !booked.has(u.uid));
  const users = { a: must(a), b: must(b), c: must(c) };
  const create = (u: PlatformUser, now: string, endMonthTime = '2026-03-31'): Fields =>
    must(call('createHostAcceleratePackOrder', { packOrder: [{ uid: u.uid, platformId: u.platformId, source: '移动', endMonthTime, isRenew: false }] }, now)[0]);
  const update = (orderId: unknown, u: PlatformUser, now: string): unknown =>
    call('updateHostAcceleratePackOrder', { updateOrders: [{ orderId, uid: u.uid, endMonthTime: '2026-04-30', isRenew: true, source: '联通' }] }, now)[0]?.status;
  const modify = (orderId: unknown, from: PlatformUser, to: PlatformUser, executeTime: string, now: string, extra: Fields = {}): unknown =>
    call('modifyHostAcceleratePackOrder', { modifyOrders: [{ orderId, oldUid: from.uid, newUid: to.uid, newPlatformId: to.platformId, executeTime, ...extra }] }, now)[0]?.status;
  const list = (body: Fields, now: string): OrderRow[] => {
    const res = must(handlers.describeHostAcceleratePackOrder)({ operation: 'describeHostAcceleratePackOrder', body: { pageNum: 1, pageSize: 100, ...body }, pathParams: {}, token: 'test', now: at(now) });
    return (res.body as { rows: OrderRow[] }).rows;
  };
  const row = (orderId: unknown, now: string): OrderRow => must(list({}, now).find((r) => r.orderId === orderId));
  return { book, users, create, update, modify, list, row };
}

function must<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('fixture missing');
  return value;
}

const second = (text: string, delta: number): string => tz.formatDateTime(at(text) + delta * 1000);

describe('rules 1 and 2: activation day depends on 17:00 (UTC+8)', () => {
  it.each([
    ['2026-03-10 00:00:00', '2026-03-11 00:00:00'],
    ['2026-03-10 16:59:59', '2026-03-11 00:00:00'],
    ['2026-03-10 17:00:00', '2026-03-12 00:00:00'],
    ['2026-03-10 23:59:59', '2026-03-12 00:00:00'],
  ])('created at %s activates at %s', (createdAt, activation) => {
    const w = world();
    const order = w.create(w.users.a, createdAt);
    expect(order).toMatchObject({ status: 1, startTime: activation });
    expect(w.row(order.orderId, second(activation, -1)).status).toBe(0);
    expect(w.row(order.orderId, activation).status).toBe(1);
  });

  it.each([
    ['2026-03-10 16:59:59', '2026-03-11', 5],
    ['2026-03-10 16:59:59', '2026-03-12', 1],
    ['2026-03-10 17:00:00', '2026-03-12', 5],
    ['2026-03-10 17:00:00', '2026-03-13', 1],
  ])('created at %s with end date %s answers %i (end and activation never share a day)', (createdAt, end, code) => {
    const w = world();
    expect(w.create(w.users.a, createdAt, end).status).toBe(code);
  });
});

describe('rule 3: an unactivated order can be updated until its activation', () => {
  it.each([
    ['2026-03-10 13:00:00', '2026-03-10 13:00:01', 1],
    ['2026-03-10 13:00:00', '2026-03-10 23:59:59', 1],
    ['2026-03-10 13:00:00', '2026-03-11 00:00:00', 7],
    ['2026-03-10 17:30:00', '2026-03-11 23:59:59', 1],
    ['2026-03-10 17:30:00', '2026-03-12 00:00:00', 7],
    ['2026-03-10 13:00:00', '2026-04-01 00:00:00', 8],
  ])('created at %s, updated at %s: %i', (createdAt, updatedAt, code) => {
    const w = world();
    const { orderId } = w.create(w.users.a, createdAt);
    expect(w.update(orderId, w.users.a, updatedAt)).toBe(code);
  });
});

describe('rule 4: an update of an activated order takes effect at 00:00 after executeTime', () => {
  function rebound(executeTime: string) {
    const w = world();
    const { orderId } = w.create(w.users.a, '2026-03-10 10:00:00');
    expect(w.modify(orderId, w.users.a, w.users.b, executeTime, '2026-03-12 10:00:00')).toBe(1);
    return { w, orderId };
  }

  it.each(['2026-03-12', '2026-03-20'])('executeTime %s: old binding until 23:59:59, new one from 00:00', (executeTime) => {
    const { w, orderId } = rebound(executeTime);
    const effective = `${tz.formatDate(tz.parseDate(executeTime) + 86_400_000)} 00:00:00`;
    const { a, b } = w.users;
    expect(w.row(orderId, second(effective, -1))).toMatchObject({
      status: 1, uid: a.uid, platformId: a.platformId, nickName: a.nickName, executeTime,
      message: expect.stringContaining(effective),
    });
    expect(w.row(orderId, effective)).toMatchObject({
      status: 1, uid: b.uid, platformId: b.platformId, nickName: b.nickName, executeTime, message: null,
    });
  });

  it('refuses a second update while one is pending, and accepts it from the new uid once effective', () => {
    const { w, orderId } = rebound('2026-03-12');
    const { a, b, c } = w.users;
    expect(w.modify(orderId, a, c, '2026-03-12', '2026-03-12 23:59:59')).toBe(6);
    expect(w.modify(orderId, a, c, '2026-03-13', '2026-03-13 00:00:00')).toBe(2);
    expect(w.modify(orderId, b, c, '2026-03-13', '2026-03-13 00:00:00')).toBe(1);
  });

  it('filters the list by the uid bound at the request time', () => {
    const { w, orderId } = rebound('2026-03-12');
    const list = (uid: string, now: string): string[] => w.list({ uid }, now).map((r) => r.orderId);
    expect(list(w.users.b.uid, '2026-03-12 23:59:59')).toEqual([]);
    expect(list(w.users.b.uid, '2026-03-13 00:00:00')).toEqual([orderId]);
  });

  it.each([
    ['omitted, the user has one', undefined, (u: PlatformUser) => u.nickName],
    ['sent', '新主播', () => '新主播'],
  ])('nickname %s', (_, newNickname, expected) => {
    const w = world();
    const to = must(w.book.users().find((u) => u.nickName !== null && u.uid !== w.users.a.uid));
    const { orderId } = w.create(w.users.a, '2026-03-10 10:00:00');
    expect(w.modify(orderId, w.users.a, to, '2026-03-12', '2026-03-12 10:00:00', { newNickname })).toBe(1);
    expect(w.row(orderId, '2026-03-13 00:00:00').nickName).toBe(expected(to));
  });

  it('nickname omitted and unknown: uid joined with platform ID by "_"', () => {
    const w = world();
    const to = must(w.book.users().find((u) => u.nickName === null));
    const { orderId } = w.create(w.users.a, '2026-03-10 10:00:00');
    expect(w.modify(orderId, w.users.a, to, '2026-03-12', '2026-03-12 10:00:00')).toBe(1);
    expect(w.row(orderId, '2026-03-13 00:00:00').nickName).toBe(`${to.uid}_${to.platformId}`);
  });
});

describe('expiry at 00:00 after the end date', () => {
  it('is active through the end date, then expired: no update, no modify, free for a new order', () => {
    const w = world();
    const { a, b } = w.users;
    const { orderId } = w.create(a, '2026-03-10 10:00:00', '2026-03-31');
    expect(w.row(orderId, '2026-03-31 23:59:59').status).toBe(1);
    expect(w.row(orderId, '2026-04-01 00:00:00').status).toBe(2);
    expect(w.update(orderId, a, '2026-04-01 00:00:00')).toBe(8);
    expect(w.modify(orderId, a, b, '2026-04-01', '2026-04-01 00:00:00')).toBe(7);
    expect(w.create(a, '2026-03-30 10:00:00', '2026-04-30').status).toBe(6);
    expect(w.create(a, '2026-03-31 10:00:00', '2026-04-30').status).toBe(1);
  });
});

describe('update limit', () => {
  it.each([
    [undefined, 3],
    [1, 1],
  ])('maxModifications %s: %i updates accepted, the next answers 9', (max, accepted) => {
    const w = world(max);
    const { a, b } = w.users;
    const { orderId } = w.create(a, '2026-03-10 10:00:00');
    for (let i = 0; i < accepted; i++) {
      const [from, to] = i % 2 === 0 ? [a, b] : [b, a];
      const day = `2026-03-${String(12 + i)}`;
      expect(w.modify(orderId, from, to, day, `${day} 10:00:00`)).toBe(1);
    }
    const [from, to] = accepted % 2 === 0 ? [a, b] : [b, a];
    expect(w.modify(orderId, from, to, '2026-03-20', '2026-03-20 10:00:00')).toBe(9);
  });
});
