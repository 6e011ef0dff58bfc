// Shared set-up of the order handler tests: one seeded order book on a fixed
// clock (2026-03-10 16:59:59 UTC+8, so a create activates 2026-03-11 00:00),
// called directly without HTTP, and the helpers the result-code tables use.
import { expect } from 'vitest';
import type { OperationName } from '../../src/api/operations.js';
import { platformClock } from '../../src/api/time.js';
import { createOrderBook, orderHandlers } from '../../src/simulator/orders/index.js';
import type { OrderBook } from '../../src/simulator/orders/book.js';
import type { OrderRow } from '../../src/simulator/orders/rows.js';
import type { PlatformUser } from '../../src/simulator/orders/model.js';
import type { SimResponse } from '../../src/simulator/types.js';

export const tz = platformClock('+08:00');
const at = (text: string): number => tz.parseDateTime(text);
const NOW = at('2026-03-10 16:59:59');
export type Fields = Record<string, unknown>;

export function world(maxModifications?: number) {
  const book: OrderBook = createOrderBook({ seed: 7, now: at('2026-03-10 09:00:00'), tz, maxModifications });
  const handlers = orderHandlers(book, tz);
  const call = (operation: OperationName, body: unknown, now = NOW): SimResponse => {
    const handler = handlers[operation];
    if (!handler) throw new Error(`no handler for ${operation}`);
    return handler({ operation, body, pathParams: {}, token: 'test', now });
  };
  const rows = (now = NOW): OrderRow[] =>
    (call('describeHostAcceleratePackOrder', { pageNum: 1, pageSize: 1000 }, now).body as { rows: OrderRow[] }).rows;
  const orderIn = (status: number): OrderRow => must(rows().find((r) => r.status === status));
  const booked = new Set(book.orders().map((o) => o.identity.uid));
  const free = book.users().filter((u) => !booked.has(u.uid));
  return { book, call, rows, orderIn, free };
}
export type World = ReturnType<typeof world>;

export function must<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('fixture missing');
  return value;
}

export function data(res: SimResponse): Fields[] {
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ code: 200, msg: '操作成功' });
  return (res.body as { data: Fields[] }).data;
}

export function lastStatus(res: SimResponse): unknown {
  return data(res).at(-1)?.status;
}

export const newOrder = (u: PlatformUser, extra: Fields = {}): Fields => ({
  uid: u.uid, platformId: u.platformId, source: '电信', endMonthTime: '2026-04-30 00:00:00',
  isRenew: true, province: '粤', nickname: '测试主播', ...extra,
});

export interface Case {
  readonly code: number;
  readonly when: string;
  readonly max?: number;
  /** Items sent as one batch; the last one's status is asserted. */
  readonly items: (w: World) => Fields[];
}
