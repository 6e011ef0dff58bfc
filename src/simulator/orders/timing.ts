// The document's activation timing rules, as pure functions of the platform
// clock. Nothing here is stored: status and the current binding are derived
// from the request's `now`, so advancing the clock activates and expires
// orders and applies pending updates without a background job.
import type { PlatformClock } from '../../api/time.js';
import { ACTIVATION_CUTOFF_HOUR, DAY_MS, HOUR_MS } from './constants.js';
import type { Identity, IdentityChange, Order } from './model.js';

export type OrderStatus = 0 | 1 | 2;

/**
 * Rules 1 and 2. The document says "before 17:00" and "after 17:00"; 17:00:00
 * itself is not before, so it takes the later activation.
 */
export function activationTime(createdAt: number, tz: PlatformClock): number {
  const midnight = tz.startOfDay(createdAt);
  const beforeCutoff = createdAt < midnight + ACTIVATION_CUTOFF_HOUR * HOUR_MS;
  return midnight + (beforeCutoff ? 1 : 2) * DAY_MS;
}

/** Rule 4: an update of an activated order takes effect at 00:00 after executeTime's date. */
export function effectiveTime(executeDay: number): number {
  return executeDay + DAY_MS;
}

/** The service ends with its end date: it expires at the following 00:00. */
export function expiryTime(endDay: number): number {
  return endDay + DAY_MS;
}

/** "Activation and end dates cannot be the same day", nor can the end come first. */
export function isValidRange(activatesAt: number, endDay: number): boolean {
  return endDay >= activatesAt + DAY_MS;
}

/** 0 not activated, 1 active, 2 expired (the list's status). */
export function statusAt(order: Order, now: number): OrderStatus {
  if (now < order.activatesAt) return 0;
  return now < order.expiresAt ? 1 : 2;
}

/** The binding in force at `now`: the latest change already effective, else the original. */
export function identityAt(order: Order, now: number): Identity {
  const applied = order.changes.filter((c) => c.effectiveAt <= now);
  return applied.at(-1) ?? order.identity;
}

export function pendingAt(order: Order, now: number): IdentityChange | undefined {
  return order.changes.find((c) => c.effectiveAt > now);
}

interface UidSpan {
  readonly uid: string;
  readonly from: number;
  readonly to: number;
}

/** Who holds the order over its service period, one span per binding. */
export function uidSpans(order: Order): UidSpan[] {
  const spans: UidSpan[] = [];
  let uid = order.identity.uid;
  let from = order.activatesAt;
  for (const change of order.changes) {
    spans.push({ uid, from, to: change.effectiveAt });
    uid = change.uid;
    from = change.effectiveAt;
  }
  spans.push({ uid, from, to: order.expiresAt });
  return spans;
}

/** Half-open intervals [aFrom, aTo) and [bFrom, bTo) share an instant. */
export function intersects(aFrom: number, aTo: number, bFrom: number, bTo: number): boolean {
  return aFrom < bTo && bFrom < aTo;
}

/**
 * endMonthTime: `yyyy-MM-dd HH:mm:ss` (the document's request convention) or
 * `yyyy-MM-dd`. Only the date counts, so the result is its 00:00; null when
 * malformed or not a calendar date.
 */
export function parseEndDay(value: unknown, tz: PlatformClock): number | null {
  if (typeof value !== 'string') return null;
  const datetime = tryParse(() => tz.startOfDay(tz.parseDateTime(value)));
  return datetime ?? tryParse(() => tz.parseDate(value));
}

/** A strict `yyyy-MM-dd` (executeTime), as its 00:00; null when malformed. */
export function parseDay(value: unknown, tz: PlatformClock): number | null {
  return typeof value === 'string' ? tryParse(() => tz.parseDate(value)) : null;
}

/** A strict `yyyy-MM-dd HH:mm:ss`; null when malformed. */
export function parseInstant(value: string, tz: PlatformClock): number | null {
  return tryParse(() => tz.parseDateTime(value));
}

// PlatformClock reports malformed text by throwing; here it is just "no value".
function tryParse(parse: () => number): number | null {
  try {
    return parse();
  } catch {
    return null;
  }
}
