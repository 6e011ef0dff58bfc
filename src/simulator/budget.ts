// A request budget for the whole account, as a real platform may enforce one
// although the vendor document states a limit only for the order operations
// (docs/upstream-notes.md, "Request budget"): at most `perSecond` requests
// accepted in any second, the rest answered 429 with Retry-After. Off unless
// switched on. It runs on the wall clock, not the simulator clock: it plays
// a limit on real traffic, and the tests that pin the simulator clock still
// send real requests at real times.
//
// Every request routed to an operation is recorded with its arrival time and
// whether the budget refused it: the ground truth the exporter's own budget
// and its answer to 429 are measured against.
import { ArgumentError } from '../shared/errors.js';

export interface BudgetSettings {
  /** Requests accepted in any one second. */
  readonly perSecond: number;
  /** Seconds named in Retry-After; default: until the budget would accept again, rounded up (at least 1). */
  readonly retryAfterSeconds?: number;
  /** `seconds` (delta-seconds, the default) or `date` (an HTTP date). */
  readonly retryAfterForm?: 'seconds' | 'date';
}

export interface ReceivedRequest {
  /** Arrival, epoch ms with sub-millisecond precision (wall clock). */
  readonly at: number;
  readonly operation: string;
  /** Refused by the budget (answered 429). */
  readonly refused: boolean;
  /** The Retry-After sent with a refusal, ms. */
  readonly retryAfterMs?: number;
  /** For the WAF log query, what it asked: `logs <beginTime>..<endTime> page <n>` or `logTread <beginTime>..<endTime>`. */
  readonly detail?: string;
}

/** Most arrivals kept; the oldest half goes when it is reached (a demo runs for days). */
const MAX_RECORDED = 200_000;

const wallNow = (): number => performance.timeOrigin + performance.now();

export class RequestBudget {
  private settings: BudgetSettings | undefined;
  private accepted: number[] = [];
  private log: ReceivedRequest[] = [];

  constructor(settings?: BudgetSettings, private readonly now: () => number = wallNow) {
    this.set(settings);
  }

  /** Switches the budget on with `settings`, or off with undefined; the recorded arrivals are kept. */
  set(settings: BudgetSettings | undefined): void {
    if (settings !== undefined) checkSettings(settings);
    this.settings = settings;
    this.accepted = [];
  }

  get(): BudgetSettings | undefined {
    return this.settings;
  }

  /**
   * Records one request to `operation` (with what `detail` says of it, asked once its arrival is timed: parsing a body
   * first skewed the times the rate tests measure); the Retry-After header value when the budget refuses it.
   */
  take(operation: string, detail?: () => string | undefined): { retryAfter: string } | undefined {
    const at = this.now();
    const budget = this.settings;
    let refusal: { retryAfter: string; ms: number } | undefined;
    if (budget !== undefined) {
      this.accepted = this.accepted.filter((t) => t > at - 1000);
      const oldest = this.accepted[0];
      if (this.accepted.length >= budget.perSecond && oldest !== undefined) {
        const seconds = budget.retryAfterSeconds ?? Math.max(1, Math.ceil((oldest + 1000 - at) / 1000));
        refusal = { ms: seconds * 1000, retryAfter: budget.retryAfterForm === 'date' ? new Date(at + seconds * 1000).toUTCString() : String(seconds) };
      } else {
        this.accepted.push(at);
      }
    }
    if (this.log.length >= MAX_RECORDED) this.log = this.log.slice(MAX_RECORDED / 2);
    const said = detail?.();
    this.log.push({ at, operation, refused: refusal !== undefined, ...(refusal ? { retryAfterMs: refusal.ms } : {}), ...(said === undefined ? {} : { detail: said }) });
    return refusal === undefined ? undefined : { retryAfter: refusal.retryAfter };
  }

  /** Every request recorded since start or reset, oldest first. */
  received(): readonly ReceivedRequest[] {
    return [...this.log];
  }

  /** Forgets the arrivals and the budget's window; the switch stays as it is. */
  reset(): void {
    this.accepted = [];
    this.log = [];
  }
}

function checkSettings(s: BudgetSettings): void {
  if (!(Number.isInteger(s.perSecond) && s.perSecond >= 1)) throw new ArgumentError('budget perSecond must be an integer >= 1');
  if (s.retryAfterSeconds !== undefined && !(Number.isInteger(s.retryAfterSeconds) && s.retryAfterSeconds >= 0)) {
    throw new ArgumentError('budget retryAfterSeconds must be an integer >= 0');
  }
  if (s.retryAfterForm !== undefined && s.retryAfterForm !== 'seconds' && s.retryAfterForm !== 'date') {
    throw new ArgumentError("budget retryAfterForm must be 'seconds' or 'date'");
  }
}
