// The order book: all mutable state of the live-acceleration simulator, one
// instance per simulated world, so nothing lives at module level.
import type { PlatformClock } from '../../api/time.js';
import { Rng } from '../rng.js';
import { DEFAULT_MAX_MODIFICATIONS } from './constants.js';
import type { NewOrder, Order, PlatformUser, QualityReport } from './model.js';
import { seedOrders, seedReports, seedUsers } from './seed.js';
import { intersects, uidSpans } from './timing.js';
import { ArgumentError } from '../../shared/errors.js';

interface OrderBookOptions {
  /** Seeds users, orders, reports and the order-ID counter. */
  readonly seed: number;
  /** The instant the seeded orders are arranged around: some expired, some active, some not yet activated. */
  readonly now: number;
  readonly tz: PlatformClock;
  /** Platform users to seed, 1 to 999; default 12. A quarter are left without orders. */
  readonly users?: number;
  /** Accepted updates per activated order before result code 9; default DEFAULT_MAX_MODIFICATIONS (3). */
  readonly maxModifications?: number;
}

export class OrderBook {
  readonly maxModifications: number;
  private readonly tz: PlatformClock;
  private readonly userList: readonly PlatformUser[];
  private readonly orderById = new Map<string, Order>();
  private readonly reportList: readonly QualityReport[];
  private serial: number;

  constructor(opts: OrderBookOptions) {
    const userCount = opts.users ?? 12;
    const maxModifications = opts.maxModifications ?? DEFAULT_MAX_MODIFICATIONS;
    if (!Number.isInteger(userCount) || userCount < 1 || userCount > 999) throw new ArgumentError('users must be an integer from 1 to 999');
    if (!Number.isInteger(maxModifications) || maxModifications < 0) throw new ArgumentError('maxModifications must be a non-negative integer');
    const rng = new Rng(opts.seed);
    this.tz = opts.tz;
    this.maxModifications = maxModifications;
    this.serial = rng.int(1, 400_000);
    this.userList = seedUsers(rng, userCount);
    for (const order of seedOrders(rng, this.userList, opts.now, opts.tz)) this.add(order);
    this.reportList = seedReports(rng, this.userList, opts.now, opts.tz);
  }

  users(): readonly PlatformUser[] {
    return this.userList;
  }

  /** The user bound to exactly this uid and platform ID (result codes 2 and 3 check this). */
  boundUser(uid: string, platformId: string): PlatformUser | undefined {
    return this.userList.find((u) => u.uid === uid && u.platformId === platformId);
  }

  order(orderId: string): Order | undefined {
    return this.orderById.get(orderId);
  }

  orders(): Order[] {
    return [...this.orderById.values()];
  }

  reports(): readonly QualityReport[] {
    return this.reportList;
  }

  /** Stores an order under the next ID: creation date plus a seeded six-digit serial. */
  add(fields: NewOrder): Order {
    const serial = String(this.serial++).padStart(6, '0');
    const orderId = `${this.tz.formatDate(fields.createdAt).replaceAll('-', '')}${serial}`;
    const order: Order = { ...fields, orderId, changes: [] };
    this.orderById.set(orderId, order);
    return order;
  }

  /** Whether `uid` holds any order other than `exceptId` at some instant of [from, to). */
  isBooked(uid: string, from: number, to: number, exceptId?: string): boolean {
    return this.orders().some(
      (o) => o.orderId !== exceptId && uidSpans(o).some((s) => s.uid === uid && intersects(s.from, s.to, from, to)),
    );
  }
}

export function createOrderBook(opts: OrderBookOptions): OrderBook {
  return new OrderBook(opts);
}
