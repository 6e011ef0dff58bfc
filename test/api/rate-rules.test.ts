// Which gates a request of each operation waits for, and the order
// operations' rule held by the same gate as every other: a slot held one
// interval (plus 1 ms) after its request settled. Fake clock, no sleeps.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OPERATIONS } from '../../src/api/operations.js';
import { RateGate } from '../../src/api/rate-gate.js';
import { rateRules } from '../../src/api/rate-rules.js';

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('rateRules', () => {
  it('gives the order operations one shared gate, an operation with a rate of its own its gate, and every request the budget, last', () => {
    const budget = new RateGate(Number.POSITIVE_INFINITY);
    const gates = rateRules(budget, { orders: 10, operations: { describeHostAcceleratePackOrder: 2, describeL7UsageData: 1 } });
    const [create, describeOrder, usage, domains] = [
      gates(OPERATIONS.createHostAcceleratePackOrder), gates(OPERATIONS.describeHostAcceleratePackOrder),
      gates(OPERATIONS.describeL7UsageData), gates(OPERATIONS.listDomains),
    ];
    expect(create.map((g) => g.ratePerSecond)).toEqual([10, Number.POSITIVE_INFINITY]);
    expect(describeOrder.map((g) => g.ratePerSecond)).toEqual([10, 2, Number.POSITIVE_INFINITY]);
    expect(describeOrder[0]).toBe(create[0]);
    expect(usage.map((g) => g.ratePerSecond)).toEqual([1, Number.POSITIVE_INFINITY]);
    expect(domains).toEqual([budget]);
    expect(gates(OPERATIONS.describeL7UsageData)[0]).toBe(usage[0]);
  });

  it('holds an order slot until one interval and 1 ms after its request settled, however long it took', async () => {
    const [orders] = rateRules(new RateGate(Number.POSITIVE_INFINITY), { orders: 2, operations: {} })(OPERATIONS.createHostAcceleratePackOrder);
    const admitted: number[] = [];
    for (let i = 0; i < 5; i++) {
      void orders?.acquire('http://api.test').then((permit) => {
        admitted.push(Date.now());
        setTimeout(() => permit?.release(), 300);
      });
    }
    await vi.advanceTimersByTimeAsync(10_000);
    expect(admitted).toEqual([0, 0, 1301, 1301, 2602]);
  });
});
