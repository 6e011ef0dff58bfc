// Assembles a simulator: clock, world, statistics, WAF logs, handlers, faults,
// rate limit and the HTTP server. Handler sets beyond operations 1-16 (the
// live-acceleration orders) are passed in as factories so a reset can rebuild
// them from the same seed; index.ts wires the real ones.
import type { OperationName } from '../api/operations.js';
import { platformClock, type PlatformClock } from '../api/time.js';
import { adminHandler } from './admin.js';
import { SimClock, type ClockMode } from './clock.js';
import type { SimContext } from './context.js';
import { Faults, type FaultRule } from './faults.js';
import { platformHandlers } from './handlers/index.js';
import { RateLimiter } from './ratelimit.js';
import { RequestBudget, type BudgetSettings } from './budget.js';
import { readingsJson, ReadingsState, type Readings } from './readings.js';
import { requestClock } from './request-clock.js';
import { checkTokens, createRouter, type SimToken } from './router.js';
import { SimServer } from './server.js';
import { Stats } from './stats.js';
import { createTruth, type Truth } from './truth.js';
import type { HandlerTable } from './types.js';
import { WafLog } from './waf.js';
import { createWorld, type World } from './world.js';

export interface SimulatorOptions {
  /** World seed (default 1). */
  seed?: number;
  /** Number of domains (default 20). */
  domains?: number;
  /** Accepted tokens (default: `sim-token` with every permission). */
  tokens?: readonly SimToken[];
  /** How long after a bucket ends its statistics keep being revised (default 180000 ms). */
  revisionDelayMs?: number;
  /** Clock: mode (default `real`), start (epoch ms or platform `yyyy-MM-dd HH:mm:ss`; default now), speed (default 1). */
  clock?: { mode?: ClockMode; start?: number | string; speed?: number };
  /** Platform UTC offset (default '+08:00'). */
  tz?: string;
  /** Fault rules active from the start (default none). */
  faults?: readonly FaultRule[];
  /** Largest WAF log ingest lag: each event becomes visible 0..this many ms after it happened (default 90000). */
  wafIngestLagMs?: number;
  /** How the upstream answers where the document is silent (default: every reading off). Kept across reset(). */
  readings?: Partial<Readings>;
  /** A request budget for the whole account, answered 429 with Retry-After when exceeded (default: off). Kept across reset(). */
  budget?: BudgetSettings;
}

export interface Simulator {
  /** Starts serving (host default 127.0.0.1, port default 0 = ephemeral). One URL serves both api and login hosts. */
  listen(host?: string, port?: number): Promise<{ url: string }>;
  /** Stops serving and destroys open sockets, hanging requests included. Idempotent. */
  close(): Promise<void>;
  readonly clock: SimClock;
  /** The current world (replaced by reset()). */
  readonly world: World;
  readonly truth: Truth;
  readonly faults: Faults;
  readonly tz: PlatformClock;
  /** The readings: change them with merge/reset (or /__admin/readings); reset() keeps them. */
  readonly readings: ReadingsState;
  /** The account's request budget (switch it with set) and every request received, with arrival time and refusal. */
  readonly budget: RequestBudget;
  /**
   * Replaces the accepted tokens from the next request on, as a credential
   * rotated upstream: a token left out is answered 401. Kept across reset().
   * Throws an ArgumentError for a malformed list (also `POST /__admin/tokens`).
   */
  setTokens(tokens: readonly SimToken[]): void;
  /** Requests routed to each operation since start or reset, whatever their outcome. */
  requestCounts(): Partial<Record<OperationName, number>>;
  /** Rebuilds the world and extra handlers, clears faults, counts, rate-limit windows and received requests; keeps the clock, readings and budget switch. */
  reset(): void;
}

interface HandlerFactoryOptions {
  seed: number;
  now: number;
  tz: PlatformClock;
  /** What request `yyyy-MM-dd HH:mm:ss` fields are read with (the paramsZone reading). */
  requestTz: PlatformClock;
}

/** Extra handlers, and what they add to /__admin/state (e.g. the order book's users). */
interface HandlerSet {
  handlers: HandlerTable;
  state?: () => Record<string, unknown>;
}

type HandlerFactory = (options: HandlerFactoryOptions) => HandlerSet;

export const DEFAULT_TOKEN = 'sim-token';

export function buildSimulator(options: SimulatorOptions = {}, extra: readonly HandlerFactory[] = []): Simulator {
  const seed = options.seed ?? 1;
  const tz = platformClock(options.tz ?? '+08:00');
  const start = options.clock?.start;
  const clock = new SimClock({
    ...(options.clock?.mode ? { mode: options.clock.mode } : {}),
    ...(options.clock?.speed !== undefined ? { speed: options.clock.speed } : {}),
    ...(start !== undefined ? { start: typeof start === 'string' ? tz.parseDateTime(start) : start } : {}),
  });
  const builtAt = clock.now();
  const readings = new ReadingsState(options.readings);
  const readingsNow = (): Readings => readings.get();
  const requestTz = requestClock(tz, readingsNow);
  const faults = new Faults(seed, options.faults ?? []);
  const limiter = new RateLimiter();
  const budget = new RequestBudget(options.budget);
  const counts = new Map<OperationName, number>();
  let tokens: readonly SimToken[] = checkTokens(options.tokens ?? [{ token: DEFAULT_TOKEN, permissions: '*' }]);
  const setTokens = (next: readonly SimToken[]): void => {
    tokens = checkTokens(next);
  };
  const build = (): { ctx: SimContext; handlers: HandlerTable; extraState: Array<() => Record<string, unknown>> } => {
    const world = createWorld({ seed, domains: options.domains ?? 20, now: builtAt, tz });
    const stats = new Stats({
      seed, domains: world.domains, tz, lateRevision: () => readingsNow().lateRevision,
      ...(options.revisionDelayMs !== undefined ? { revisionDelayMs: options.revisionDelayMs } : {}),
    });
    const waf = new WafLog({
      seed, domains: world.domains, offsetMinutes: tz.offsetMinutes, lateIngest: () => readingsNow().wafLateIngest,
      ...(options.wafIngestLagMs !== undefined ? { maxIngestLagMs: options.wafIngestLagMs } : {}),
    });
    const ctx: SimContext = { world, stats, waf, tz, requestTz, readings: readingsNow };
    const handlers: HandlerTable = platformHandlers(ctx);
    const extraState: Array<() => Record<string, unknown>> = [];
    for (const factory of extra) {
      const set = factory({ seed, now: builtAt, tz, requestTz });
      Object.assign(handlers, set.handlers);
      if (set.state) extraState.push(set.state);
    }
    return { ctx, handlers, extraState };
  };
  let current = build();
  const requestCounts = (): Partial<Record<OperationName, number>> => Object.fromEntries(counts);
  const reset = (): void => {
    current = build();
    faults.clear();
    limiter.reset();
    budget.reset();
    counts.clear();
  };
  const state = (): Record<string, unknown> => ({
    seed, domains: current.ctx.world.domains.length, clock: clock.state(), time: tz.formatDateTime(clock.now()),
    revisionDelayMs: current.ctx.stats.revisionDelayMs, faults: faults.list(), requestCounts: requestCounts(),
    readings: readingsJson(readings.get()), budget: budget.get() ?? null,
    ...Object.assign({}, ...current.extraState.map((f) => f())),
  });
  const server = new SimServer(createRouter({
    clock, faults, limiter, budget, counts,
    tokens: () => tokens,
    handlers: () => current.handlers,
    readings: readingsNow,
    admin: adminHandler({
      clock, faults, tz, readings, budget, state, reset,
      domains: () => ({ names: current.ctx.world.domains.map((d) => d.domainName), removed: current.ctx.world.removed }),
      setTokens: (next) => {
        setTokens(next as readonly SimToken[]);
        return tokens.length;
      },
    }),
  }));
  return {
    listen: async (host = '127.0.0.1', port = 0) => ({ url: (await server.listen(host, port)).url }),
    close: () => server.close(),
    clock,
    get world() {
      return current.ctx.world;
    },
    truth: createTruth(() => current.ctx),
    faults,
    tz,
    readings,
    budget,
    requestCounts,
    setTokens,
    reset,
  };
}
