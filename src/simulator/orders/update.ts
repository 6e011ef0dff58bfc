// Operation 18: update orders that are not activated yet (rule 3: only until
// their activation instant). The activation instant stays as created; the end
// date, carrier, renewal, nickname and province may change.
import type { PlatformClock } from '../../api/time.js';
import type { Handler } from '../types.js';
import { batchHandler } from './batch.js';
import type { OrderBook } from './book.js';
import type { Carrier } from './constants.js';
import { INTERNAL_ERROR_UID, UPDATE } from './constants.js';
import type { Item } from './fields.js';
import { isCarrier, isOptionalNickname, stringOrNull } from './fields.js';
import type { Order } from './model.js';
import { serviceTimes } from './rows.js';
import { expiryTime, identityAt, isValidRange, parseEndDay, statusAt } from './timing.js';

interface Ctx {
  readonly book: OrderBook;
  readonly tz: PlatformClock;
}

/** A checked update; null fields keep the stored value. */
interface Patch {
  readonly order: Order;
  readonly expiresAt: number;
  readonly source: Carrier;
  readonly isRenew: boolean;
  readonly nickName: string | null;
  readonly province: string | null;
}

export function updateHandler(book: OrderBook, tz: PlatformClock): Handler {
  const ctx: Ctx = { book, tz };
  // province has no result code in this column, so only its JSON type is checked (request-level).
  const spec = { key: 'updateOrders', booleans: ['isRenew'], strings: ['province'] };
  return batchHandler(spec, (item, now) => updateOne(ctx, item, now));
}

function updateOne(ctx: Ctx, item: Item, now: number): Record<string, unknown> {
  const checked = check(ctx, item, now);
  if (typeof checked === 'number') return { ...echo(item), status: checked, startTime: null, endTime: null };
  const order = apply(checked);
  return { ...echo(item), status: UPDATE.updated, source: order.source, province: order.province, ...serviceTimes(order, ctx.tz) };
}

function echo(item: Item): Record<string, unknown> {
  return {
    orderId: stringOrNull(item.orderId),
    uid: stringOrNull(item.uid),
    source: stringOrNull(item.source),
    province: stringOrNull(item.province),
    isRenew: item.isRenew,
  };
}

/** Internal error first, then find and authorize the order, then its state, then the fields. */
function check(ctx: Ctx, item: Item, now: number): Patch | number {
  const { orderId, uid, nickname, source, province } = item;
  if (uid === INTERNAL_ERROR_UID) return UPDATE.internal;
  const order = typeof orderId === 'string' ? ctx.book.order(orderId) : undefined;
  if (!order || order.createdAt > now) return UPDATE.notFound;
  if (uid !== identityAt(order, now).uid) return UPDATE.uidMismatch;
  const status = statusAt(order, now);
  if (status === 2) return UPDATE.expired;
  if (status === 1) return UPDATE.activated;
  if (!isOptionalNickname(nickname)) return UPDATE.badNickname;
  const endDay = parseEndDay(item.endMonthTime, ctx.tz);
  if (endDay === null) return UPDATE.badEndTime;
  const expiresAt = expiryTime(endDay);
  // The column has no overlap code; stretching into another order of the same uid is an invalid range.
  const clash = ctx.book.isBooked(order.identity.uid, order.activatesAt, expiresAt, order.orderId);
  if (!isValidRange(order.activatesAt, endDay) || clash) return UPDATE.badRange;
  if (!isCarrier(source)) return UPDATE.badCarrier;
  return {
    order,
    expiresAt,
    source,
    isRenew: item.isRenew === true,
    nickName: typeof nickname === 'string' ? nickname : null,
    province: typeof province === 'string' ? province : null,
  };
}

function apply(patch: Patch): Order {
  const { order } = patch;
  order.expiresAt = patch.expiresAt;
  order.source = patch.source;
  order.isRenew = patch.isRenew;
  if (patch.nickName !== null) order.identity = { ...order.identity, nickName: patch.nickName };
  if (patch.province !== null) order.province = patch.province;
  return order;
}
