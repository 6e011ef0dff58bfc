// The client's rate rules, all held by one kind of gate (rate-gate.ts), and
// which of them a request of each operation waits for, in this order:
// - the order operations' documented "at most N requests per second per
//   user" (upstream.order_rate_limit), one gate they all share. The upstream
//   counts a request when it arrives, some unknown time after it was sent (a
//   new connection takes tens of ms, a reused one almost nothing), so spacing
//   the sends a second apart is not enough: a slow first request and a fast
//   eleventh one land in the same upstream second. The gate holds each slot
//   until one interval after its request settled (plus rate-gate.ts's 1 ms),
//   so any N+1 requests the upstream sees are at least one interval apart;
// - the operation's own rate (upstream.rate_limits);
// - the budget of every request (upstream.rate_limit), the gate the throttle
//   moves after a 429 and Retry-After pauses per host.
import type { OperationName, OperationSpec } from './operations.js';
import { RateGate } from './rate-gate.js';

interface RateRules {
  /** Requests per second of the order operations together. */
  readonly orders: number;
  /** Requests per second of single operations. */
  readonly operations: Partial<Record<OperationName, number>>;
}

/** The gates a request of an operation passes, `budget` last (its permit's admission time is the request's for the throttle). */
export function rateRules(budget: RateGate, rules: RateRules): (spec: OperationSpec) => readonly RateGate[] {
  const orders = new RateGate(rules.orders);
  const own = new Map(Object.entries(rules.operations).map(([operation, rate]) => [operation, new RateGate(rate)]));
  return (spec) => {
    const gate = own.get(spec.name);
    return [...(spec.rateLimited ? [orders] : []), ...(gate === undefined ? [] : [gate]), budget];
  };
}
