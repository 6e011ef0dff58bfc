// Operation 20: list orders, newest first, as seen at the request's clock.
import type { PlatformClock } from '../../api/time.js';
import type { Handler } from '../types.js';
import { fail, ok } from '../types.js';
import type { OrderBook } from './book.js';
import type { Item } from './fields.js';
import { isAbsent, isRecord } from './fields.js';
import type { Order } from './model.js';
import type { Page } from './paging.js';
import { readPage, slicePage } from './paging.js';
import { orderRow } from './rows.js';
import { identityAt, parseInstant } from './timing.js';

interface ListQuery {
  readonly page: Page;
  readonly from: number;
  readonly to: number;
  readonly source: string | null;
  readonly uid: string | null;
}

export function listHandler(book: OrderBook, tz: PlatformClock): Handler {
  return (req) => {
    const query = readQuery(req.body, tz);
    if (typeof query === 'string') return fail(400, 400, query);
    const matching = book
      .orders()
      .filter((o) => o.createdAt <= req.now && matches(o, query, req.now))
      .sort(newestFirst);
    return ok({ total: matching.length, rows: slicePage(matching, query.page).map((o) => orderRow(o, req.now, tz)) });
  };
}

function newestFirst(a: Order, b: Order): number {
  return b.createdAt - a.createdAt || b.orderId.localeCompare(a.orderId);
}

/** startTime/endTime select orders whose service period overlaps [startTime, endTime]; uid is the binding at `now`. */
function matches(order: Order, q: ListQuery, now: number): boolean {
  if (order.activatesAt > q.to || order.expiresAt <= q.from) return false;
  if (q.source !== null && order.source !== q.source) return false;
  return q.uid === null || identityAt(order, now).uid === q.uid;
}

function readQuery(body: unknown, tz: PlatformClock): ListQuery | string {
  if (!isRecord(body)) return 'request body must be a JSON object';
  const page = readPage(body);
  if (typeof page === 'string') return page;
  const from = readTime(body, 'startTime', tz, -Infinity);
  const to = readTime(body, 'endTime', tz, Infinity);
  if (typeof from === 'string') return from;
  if (typeof to === 'string') return to;
  if (from > to) return 'startTime must not be after endTime';
  const source = readText(body, 'source');
  const uid = readText(body, 'uid');
  if (source === undefined || uid === undefined) return 'source and uid must be strings';
  return { page, from, to, source, uid };
}

function readTime(body: Item, field: string, tz: PlatformClock, fallback: number): number | string {
  const value = body[field];
  // An empty string is how form-style clients say "no filter".
  if (isAbsent(value) || value === '') return fallback;
  const ms = typeof value === 'string' ? parseInstant(value, tz) : null;
  return ms ?? `${field} must be yyyy-MM-dd HH:mm:ss`;
}

/** null: no filter; undefined: not a string. */
function readText(body: Item, field: string): string | null | undefined {
  const value = body[field];
  if (isAbsent(value) || value === '') return null;
  return typeof value === 'string' ? value : undefined;
}
