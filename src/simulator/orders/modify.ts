// Operation 19: update an activated order, i.e. rebind it to another uid and
// platform ID. The change is stored at once but takes effect at 00:00 after
// executeTime (rule 4); until then rows show the old binding and executeTime.
import type { PlatformClock } from '../../api/time.js';
import type { Handler } from '../types.js';
import { batchHandler } from './batch.js';
import type { OrderBook } from './book.js';
import { INTERNAL_ERROR_UID, MODIFY, NICKNAME_JOINER } from './constants.js';
import type { Item } from './fields.js';
import { isOptionalNickname, stringOrNull } from './fields.js';
import type { IdentityChange, Order } from './model.js';
import { effectiveTime, identityAt, parseDay, pendingAt, statusAt } from './timing.js';

interface Ctx {
  readonly book: OrderBook;
  readonly tz: PlatformClock;
}

export function modifyHandler(book: OrderBook, tz: PlatformClock): Handler {
  const ctx: Ctx = { book, tz };
  return batchHandler({ key: 'modifyOrders', booleans: [], strings: [] }, (item, now) => modifyOne(ctx, item, now));
}

/** The document does not show this response; each item says which order, its result, and the date accepted. */
function modifyOne(ctx: Ctx, item: Item, now: number): Record<string, unknown> {
  const orderId = stringOrNull(item.orderId);
  const checked = check(ctx, item, now);
  if (typeof checked === 'number') return { orderId, status: checked, executeTime: stringOrNull(item.executeTime) };
  checked.order.changes.push(checked.change);
  return { orderId, status: MODIFY.modified, executeTime: checked.change.executeDate };
}

/**
 * Internal error first; then find and authorize the order (5, 2); then its
 * state (7, 6, 9); then the new binding and the date (3, 4, 8).
 */
function check(ctx: Ctx, item: Item, now: number): { order: Order; change: IdentityChange } | number {
  if (item.newUid === INTERNAL_ERROR_UID) return MODIFY.internal;
  const order = typeof item.orderId === 'string' ? ctx.book.order(item.orderId) : undefined;
  if (!order || order.createdAt > now) return MODIFY.notFound;
  if (item.oldUid !== identityAt(order, now).uid) return MODIFY.uidMismatch;
  if (statusAt(order, now) !== 1) return MODIFY.notActive;
  if (pendingAt(order, now)) return MODIFY.pending;
  if (order.changes.length >= ctx.book.maxModifications) return MODIFY.limitReached;
  const change = newBinding(ctx, item);
  if (typeof change === 'number') return change;
  const day = parseDay(item.executeTime, ctx.tz);
  if (day === null || !isExecutable(ctx, order, day, now)) return MODIFY.badExecuteTime;
  return { order, change: { ...change, executeDate: ctx.tz.formatDate(day), effectiveAt: effectiveTime(day) } };
}

/** The new binding with its nickname: as sent, else the user's, else uid joined with platform ID. */
function newBinding(ctx: Ctx, item: Item): { uid: string; platformId: string; nickName: string } | number {
  const { newUid, newPlatformId, newNickname } = item;
  const user = typeof newUid === 'string' && typeof newPlatformId === 'string' ? ctx.book.boundUser(newUid, newPlatformId) : undefined;
  if (!user) return MODIFY.newPairMismatch;
  // The schema types newNickname as boolean, the sample as string: only a string is a nickname.
  if (!isOptionalNickname(newNickname)) return MODIFY.badNickname;
  const nickName = typeof newNickname === 'string' ? newNickname : (user.nickName ?? `${user.uid}${NICKNAME_JOINER}${user.platformId}`);
  return { uid: user.uid, platformId: user.platformId, nickName };
}

/** Not before today, and effective before the order expires (otherwise it could never apply). */
function isExecutable(ctx: Ctx, order: Order, day: number, now: number): boolean {
  return day >= ctx.tz.startOfDay(now) && effectiveTime(day) < order.expiresAt;
}
