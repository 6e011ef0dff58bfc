// Live-acceleration orders for the simulator (operations 17-21): a seeded
// order book and the handlers that apply the vendor document's per-item result
// codes and activation timing rules to it on the request's clock. The router
// wires these handlers in; rate limiting, auth and faults are its business.
import type { PlatformClock } from '../../api/time.js';
import type { HandlerTable } from '../types.js';
import type { OrderBook } from './book.js';
import { createHandler } from './create.js';
import { listHandler } from './list.js';
import { modifyHandler } from './modify.js';
import { reportsHandler } from './reports.js';
import { updateHandler } from './update.js';

export { createOrderBook } from './book.js';

export function orderHandlers(book: OrderBook, tz: PlatformClock): HandlerTable {
  return {
    createHostAcceleratePackOrder: createHandler(book, tz),
    updateHostAcceleratePackOrder: updateHandler(book, tz),
    modifyHostAcceleratePackOrder: modifyHandler(book, tz),
    describeHostAcceleratePackOrder: listHandler(book, tz),
    describeVQUserData: reportsHandler(book),
  };
}
