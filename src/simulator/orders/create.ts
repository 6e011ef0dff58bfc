// Operation 17: create live-acceleration orders. Each item is checked in
// ascending result-code order (internal error first) and stored only when all
// checks pass; the activation instant comes from the request clock (rules 1, 2).
import type { PlatformClock } from '../../api/time.js';
import type { Handler } from '../types.js';
import { batchHandler } from './batch.js';
import type { OrderBook } from './book.js';
import { CREATE, INTERNAL_ERROR_UID } from './constants.js';
import type { Item } from './fields.js';
import type { NewOrder } from './model.js';
import { isAbsent, isCarrier, isOptionalNickname, isProvince, stringOrNull } from './fields.js';
import { serviceTimes } from './rows.js';
import { activationTime, expiryTime, isValidRange, parseEndDay } from './timing.js';

interface Ctx {
  readonly book: OrderBook;
  readonly tz: PlatformClock;
}

export function createHandler(book: OrderBook, tz: PlatformClock): Handler {
  const ctx: Ctx = { book, tz };
  return batchHandler({ key: 'packOrder', booleans: ['isRenew'], strings: [] }, (item, now) => createOne(ctx, item, now));
}

function createOne(ctx: Ctx, item: Item, now: number): Record<string, unknown> {
  const checked = check(ctx, item, now);
  if (typeof checked === 'number') return { ...echo(item), status: checked, orderId: null, startTime: null, endTime: null };
  const order = ctx.book.add(checked);
  return { ...echo(item), status: CREATE.created, orderId: order.orderId, province: order.province, ...serviceTimes(order, ctx.tz) };
}

function echo(item: Item): Record<string, unknown> {
  return {
    uid: stringOrNull(item.uid),
    platformId: stringOrNull(item.platformId),
    source: stringOrNull(item.source),
    province: stringOrNull(item.province),
    isRenew: item.isRenew,
  };
}

/** The order to store, or the result code of the first check that fails. */
function check(ctx: Ctx, item: Item, now: number): NewOrder | number {
  const { uid, platformId, nickname, province, source } = item;
  if (uid === INTERNAL_ERROR_UID) return CREATE.internal;
  const user = typeof uid === 'string' && typeof platformId === 'string' ? ctx.book.boundUser(uid, platformId) : undefined;
  if (!user) return CREATE.pairMismatch;
  if (!isOptionalNickname(nickname)) return CREATE.badNickname;
  const endDay = parseEndDay(item.endMonthTime, ctx.tz);
  if (endDay === null) return CREATE.badEndTime;
  const activatesAt = activationTime(now, ctx.tz);
  if (!isValidRange(activatesAt, endDay)) return CREATE.badRange;
  if (ctx.book.isBooked(user.uid, activatesAt, expiryTime(endDay))) return CREATE.overlap;
  if (!isAbsent(province) && !isProvince(province)) return CREATE.badProvince;
  if (!isCarrier(source)) return CREATE.badCarrier;
  return {
    createdAt: now,
    activatesAt,
    expiresAt: expiryTime(endDay),
    // Without a nickname the order shows the one bound to the user, if any.
    identity: { ...user, nickName: typeof nickname === 'string' ? nickname : user.nickName },
    source,
    province: typeof province === 'string' ? province : '',
    isRenew: item.isRenew === true,
  };
}
