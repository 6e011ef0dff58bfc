// The list row of an order as seen at `now`: status, binding and the pending
// update are all derived from the clock.
import type { PlatformClock } from '../../api/time.js';
import type { Order } from './model.js';
import type { OrderStatus } from './timing.js';
import { identityAt, pendingAt, statusAt } from './timing.js';

export interface OrderRow {
  uid: string;
  platformId: string;
  startTime: string;
  endTime: string;
  isRenew: boolean;
  renew: boolean;
  status: OrderStatus;
  province: string;
  source: string;
  nickName: string | null;
  message: string | null;
  orderId: string;
  executeTime: string | null;
}

/** startTime is the activation instant; endTime the last second of the end date. */
export function serviceTimes(order: Order, tz: PlatformClock): { startTime: string; endTime: string } {
  return { startTime: tz.formatDateTime(order.activatesAt), endTime: tz.formatDateTime(order.expiresAt - 1000) };
}

export function orderRow(order: Order, now: number, tz: PlatformClock): OrderRow {
  const who = identityAt(order, now);
  const pending = pendingAt(order, now);
  return {
    uid: who.uid,
    platformId: who.platformId,
    ...serviceTimes(order, tz),
    isRenew: order.isRenew,
    renew: order.isRenew,
    status: statusAt(order, now),
    province: order.province,
    source: order.source,
    nickName: who.nickName,
    // The document does not say what message holds; a pending rebinding is the one thing worth telling.
    message: pending ? `变更待生效: uid ${pending.uid} 于 ${tz.formatDateTime(pending.effectiveAt)} 生效` : null,
    orderId: order.orderId,
    // The date of the latest accepted update, pending or applied.
    executeTime: order.changes.at(-1)?.executeDate ?? null,
  };
}
