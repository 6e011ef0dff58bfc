// The upstream simulator: an independent implementation of the vendor
// document (docs: /work/shared/upstream-api.md) serving all 21 operations on
// one port, with seeded data, a controllable clock, late-arriving statistics
// and logs, fault injection, and a ground-truth API for tests.
import { createOrderBook, orderHandlers } from './orders/index.js';
import { buildSimulator, type Simulator, type SimulatorOptions } from './simulator.js';

export type { Simulator } from './simulator.js';
export { DEFAULT_TOKEN } from './simulator.js';
export type { BudgetSettings } from './budget.js';
export type { Readings } from './readings.js';
export { DEFAULT_READINGS } from './readings.js';

/** A simulator with every operation, the live-acceleration orders included. */
export function createSimulator(opts: SimulatorOptions = {}): Simulator {
  return buildSimulator(opts, [
    (o) => {
      const book = createOrderBook(o);
      // The platform users are not listed by any operation; the admin state
      // shows them so a demo or test can create orders for a real binding.
      const users = (): Record<string, unknown> => ({
        users: book.users().map((u) => ({ uid: u.uid, platformId: u.platformId, nickName: u.nickName })),
      });
      // Orders read request times with the request clock (paramsZone) and write them in the platform zone.
      return { handlers: orderHandlers(book, o.requestTz), state: users };
    },
  ]);
}
