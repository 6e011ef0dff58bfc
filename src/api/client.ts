// The typed upstream client: one method per operation. A call validates the
// request locally (nothing is sent when it is wrong), waits for a concurrency
// slot, then for the rate rules of its operation (rate-rules.ts: the order
// operations' documented 10 req/s, the operation's own rate, the request
// budget) and any pause the upstream asked for, sends one attempt, and
// retries reads only. A 429 or a 503 with Retry-After pauses every request to
// that host until then, and a 429 lowers the rate in force (throttle.ts).
// Writes are never repeated automatically: a timed-out write may still have
// happened upstream. A request answered 401 may be replayed once with a
// refreshed token (refreshToken): the upstream rejected it before doing
// anything, so that holds for writes too.
import { Agent, type Dispatcher } from 'undici';
import pLimit, { type LimitFunction } from 'p-limit';
import pRetry from 'p-retry';
import { OPERATIONS, expandPath, type OperationName, type OperationSpec } from './operations.js';
import { operationSchemas, type RequestOf, type AnswerOf, type SentRequestOf } from './schemas/index.js';
import { AbortedError, ApiError, AuthError, BadResponseError, ValidationError, type ValidationIssue } from './errors.js';
import { RateGate, type Permit } from './rate-gate.js';
import { rateRules } from './rate-rules.js';
import { Throttle } from './throttle.js';
import { attempt } from './transport.js';
import { maskUrl, proxyCredentials, proxyFor, type ProxyRoute } from '../outbound/index.js';
import { ArgumentError } from '../shared/errors.js';

export interface RetryOptions {
  /** Total attempts for a read, the first included. */
  attempts: number;
  minDelayMs: number;
  maxDelayMs: number;
}

/** Events for whoever wants to count them; the client itself knows nothing about metrics. */
export interface ClientObserver {
  onResponse?(e: { operation: OperationName; outcome: 'success' | ApiError['code']; durationMs: number; status?: number }): void;
  onRetry?(e: { operation: OperationName; attempt: number; error: ApiError }): void;
  onRateLimitWait?(e: { operation: OperationName }): void;
  /**
   * A 429, or a 503 with Retry-After: `host` (an origin) is paused for
   * `retryAfterMs` when the answer named a wait; `started` when it begins a
   * throttled period. `ratePerSecond` is the rate in force after it.
   */
  onThrottled?(e: { operation: OperationName; status: number; host: string; retryAfterMs: number | undefined; ratePerSecond: number; started: boolean }): void;
  /** The throttled period is over: the rate is back at the budget (Infinity: no limit of the daemon's own). */
  onThrottleEnd?(e: { ratePerSecond: number }): void;
  /** The rate in force changed (a 429 lowered it, a success raised it back). */
  onRateChange?(e: { ratePerSecond: number }): void;
}

export interface ClientOptions {
  apiUrl: string;
  /** Host for the WAF log query; defaults to apiUrl. */
  loginUrl?: string;
  token: string;
  /**
   * Where a changed token comes from (e.g. a token file read again), asked
   * when a request is answered 401. When it gives a token other than the one
   * that request carried, the client swaps it in and sends that request once
   * more (not counted as a retry); otherwise, or when it rejects, the
   * AuthError stands. 401s arriving together share one call.
   */
  refreshToken?: () => Promise<string | undefined>;
  /** How operations other than describeLogV2 carry the token. */
  authScheme?: 'bearer' | 'raw';
  timeoutMs?: number;
  maxBodyBytes?: number;
  concurrency?: number;
  /** Pooled connections per origin, used when no dispatcher is given. */
  connections?: number;
  orderRateLimit?: number;
  /** Requests per second to the upstream, all operations together (a burst of as many); Infinity or absent: none of the daemon's own. */
  rateLimit?: number;
  /** Requests per second of single operations, on top of rateLimit. */
  rateLimits?: Partial<Record<OperationName, number>>;
  retry?: Partial<RetryOptions>;
  paths?: Partial<Record<OperationName, string>>;
  dispatcher?: Dispatcher;
  /** The proxy route `dispatcher` follows, so a network error names the proxy in use (default: none). */
  proxy?: ProxyRoute;
  observer?: ClientObserver;
}

export interface CallOptions {
  signal?: AbortSignal;
  /**
   * Path template for this call instead of the configured one (`{oid}`
   * placeholders as in operations.ts). For probes that try another spelling
   * of a path the document leaves open (the doctor), not for everyday calls.
   */
  path?: string;
}

const CLIENT_DEFAULTS = {
  authScheme: 'bearer',
  timeoutMs: 15_000,
  maxBodyBytes: 32 * 1024 * 1024,
  concurrency: 8,
  connections: 16,
  orderRateLimit: 10,
  retry: { attempts: 4, minDelayMs: 250, maxDelayMs: 10_000 },
} as const;

/** One operation's typed method, as the client and a read client (read-client.ts) have it. */
export type Method<K extends OperationName> = (request: RequestOf<K>, options?: CallOptions) => Promise<AnswerOf<K>>;

export class EdgeClient {
  private readonly settings: Required<Omit<ClientOptions, 'token' | 'refreshToken' | 'loginUrl' | 'paths' | 'dispatcher' | 'proxy' | 'observer' | 'retry' | 'rateLimit' | 'rateLimits'>> & { retry: RetryOptions };
  private token: string;
  private readonly refreshToken: (() => Promise<string | undefined>) | undefined;
  /** The refresh in flight, shared by every 401 that arrives while it runs. */
  private refreshing: Promise<string> | undefined;
  private readonly loginUrl: string;
  private readonly paths: Partial<Record<OperationName, string>>;
  private readonly dispatcher: Dispatcher;
  private readonly proxy: ProxyRoute | undefined;
  /** The masked form and the secrets of each proxy URL in use (at most two: api_url's and login_url's), worked out once, not per request. */
  private readonly proxyShown = new Map<string, { proxy: string; proxySecrets: readonly string[] }>();
  private readonly ownsDispatcher: boolean;
  private readonly observer: ClientObserver;
  private readonly limit: LimitFunction;
  private closing: Promise<void> | undefined;
  /** The budget of every request, and the pauses the upstream asked for, per host. */
  private readonly gate: RateGate;
  private readonly throttle: Throttle;
  /** The gates a request of an operation waits for, `gate` last. */
  private readonly gates: (spec: OperationSpec) => readonly RateGate[];
  /** The origins pauses are kept by: api_url's and login_url's (the same when they share a host). */
  private readonly origins: { readonly api: string; readonly login: string };

  constructor(options: ClientOptions) {
    this.settings = {
      apiUrl: options.apiUrl,
      authScheme: options.authScheme ?? CLIENT_DEFAULTS.authScheme,
      timeoutMs: options.timeoutMs ?? CLIENT_DEFAULTS.timeoutMs,
      maxBodyBytes: options.maxBodyBytes ?? CLIENT_DEFAULTS.maxBodyBytes,
      concurrency: options.concurrency ?? CLIENT_DEFAULTS.concurrency,
      connections: options.connections ?? CLIENT_DEFAULTS.connections,
      orderRateLimit: options.orderRateLimit ?? CLIENT_DEFAULTS.orderRateLimit,
      retry: { ...CLIENT_DEFAULTS.retry, ...options.retry },
    };
    this.token = options.token;
    this.refreshToken = options.refreshToken;
    this.loginUrl = options.loginUrl ?? options.apiUrl;
    this.paths = options.paths ?? {};
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher = options.dispatcher ?? new Agent({ connections: this.settings.connections });
    this.proxy = options.proxy;
    this.observer = options.observer ?? {};
    this.limit = pLimit(this.settings.concurrency);
    const budget = options.rateLimit ?? Number.POSITIVE_INFINITY;
    this.gate = new RateGate(budget);
    this.throttle = new Throttle(this.gate, budget);
    this.origins = { api: new URL(this.settings.apiUrl).origin, login: new URL(this.loginUrl).origin };
    this.gates = rateRules(this.gate, { orders: this.settings.orderRateLimit, operations: options.rateLimits ?? {} });
  }

  /** The rate in force, requests per second: the budget, lower while throttled; Infinity for none. */
  get ratePerSecond(): number {
    return this.gate.ratePerSecond;
  }

  /** Closes pooled connections the client opened itself. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.ownsDispatcher ? this.dispatcher.close() : Promise.resolve();
    return this.closing;
  }

  /** The token requests carry from now on (e.g. a reload read a rotated one); requests in flight keep theirs. */
  setToken(token: string): void {
    if (token === '') throw new ArgumentError('the upstream token must not be empty');
    this.token = token;
  }

  /** Validates a request the way a call would, without sending it. */
  validate<K extends OperationName>(operation: K, request: unknown): SentRequestOf<K> {
    const result = operationSchemas[operation].request.safeParse(request);
    if (result.success) return result.data as SentRequestOf<K>;
    const issues: ValidationIssue[] = result.error.issues.map((i) => ({
      path: i.path.map(String).join('.'),
      message: i.message,
    }));
    throw new ValidationError(operation, issues);
  }

  /** Sends any operation by name; the typed methods below are the usual way in. */
  async call<K extends OperationName>(operation: K, request: RequestOf<K>, options: CallOptions = {}): Promise<AnswerOf<K>> {
    const spec = OPERATIONS[operation];
    const body = this.validate(operation, request);
    const send = (): Promise<AnswerOf<K>> => this.sendOnce(spec, body, options);
    if (spec.write) return send();
    const { attempts, minDelayMs, maxDelayMs } = this.settings.retry;
    return pRetry(send, {
      retries: attempts - 1,
      minTimeout: minDelayMs,
      maxTimeout: maxDelayMs,
      randomize: true,
      // Not unref'd: a wait between attempts is work in progress (`call` must not exit in it); an abort clears it.
      signal: options.signal,
      shouldRetry: ({ error }) => error instanceof ApiError && error.retryable,
      onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => {
        if (retriesLeft > 0 && error instanceof ApiError && error.retryable) {
          this.observer.onRetry?.({ operation, attempt: attemptNumber, error });
        }
      },
    });
  }

  /**
   * One attempt in a concurrency slot and, when it is answered 401 and a
   * refreshed token differs from the one it carried, one replay with that
   * token: a request of its own (its own slot, rate-gate turns and observer
   * report), not a retry.
   */
  private async sendOnce<K extends OperationName>(spec: OperationSpec, request: SentRequestOf<K>, options: CallOptions): Promise<AnswerOf<K>> {
    const sent: Sent = {};
    try {
      return await this.limit(() => this.once<K>(spec, request, options, sent));
    } catch (err) {
      if (!(err instanceof AuthError) || this.refreshToken === undefined || sent.token === undefined) throw err;
      const token = await this.tokenAfter401(sent.token);
      if (token === sent.token || options.signal?.aborted === true) throw err;
      return this.limit(() => this.once<K>(spec, request, options, {}));
    }
  }

  /**
   * The token to replay a request with that was answered 401 carrying
   * `rejected`: the current one when it has changed since (another 401's
   * refresh, or setToken), else what the refresh gives, read once for every
   * 401 that arrives while it runs.
   */
  private tokenAfter401(rejected: string): Promise<string> {
    if (this.token !== rejected) return Promise.resolve(this.token);
    const refresh = this.refreshToken;
    if (refresh === undefined) return Promise.resolve(this.token);
    this.refreshing ??= (async () => {
      try {
        const fresh = await refresh();
        if (fresh !== undefined && fresh !== '') this.token = fresh;
      } catch {
        // The refresher reports its own failures; the AuthError stands.
      } finally {
        this.refreshing = undefined;
      }
      return this.token;
    })();
    return this.refreshing;
  }

  private once<K extends OperationName>(spec: OperationSpec, request: SentRequestOf<K>, options: CallOptions, sent: Sent): Promise<AnswerOf<K>> {
    return this.budgeted(spec, options.signal, () => this.timed(spec, request, options, sent));
  }

  /**
   * `send` once the operation's rate rules and the host's pause allow; its
   * outcome then steers the throttle. Slots are released when it settles
   * (rate-rules.ts says why not when it was sent).
   */
  private async budgeted<T>(spec: OperationSpec, signal: AbortSignal | undefined, send: () => Promise<T>): Promise<T> {
    const operation = spec.name;
    const host = spec.host === 'login' ? this.origins.login : this.origins.api;
    const onWait = (): void => this.observer.onRateLimitWait?.({ operation });
    const permits: Permit[] = [];
    try {
      for (const gate of this.gates(spec)) {
        const permit = await gate.acquire(host, signal, onWait);
        if (permit === undefined) throw new AbortedError(`${operation}: aborted while waiting for the request budget`, { operation });
        permits.push(permit);
      }
      const sentAt = permits.at(-1)?.sentAt ?? this.gate.clock();
      try {
        const result = await send();
        this.afterSuccess();
        return result;
      } catch (err) {
        if (err instanceof ApiError) this.afterFailure(err, host, sentAt);
        throw err;
      }
    } finally {
      for (const permit of permits) permit.release();
    }
  }

  private afterSuccess(): void {
    const before = this.gate.ratePerSecond;
    const change = this.throttle.onSuccess();
    const rate = this.gate.ratePerSecond;
    if (rate !== before) this.observer.onRateChange?.({ ratePerSecond: rate });
    if (change === 'end') this.observer.onThrottleEnd?.({ ratePerSecond: rate });
  }

  /** A 429, or a 503 that named a wait: pause the host, and after a 429 lower the rate. */
  private afterFailure(err: ApiError, host: string, sentAt: number): void {
    const status = err.status;
    if (status !== 429 && !(status === 503 && err.retryAfterMs !== undefined)) return;
    if (err.retryAfterMs !== undefined) this.gate.pause(host, this.gate.clock() + err.retryAfterMs);
    const before = this.gate.ratePerSecond;
    const started = this.throttle.onThrottled(sentAt, status === 429) === 'start';
    const rate = this.gate.ratePerSecond;
    if (rate !== before) this.observer.onRateChange?.({ ratePerSecond: rate });
    this.observer.onThrottled?.({ operation: err.operation, status, host, retryAfterMs: err.retryAfterMs, ratePerSecond: rate, started });
  }

  /** One attempt, reported to the observer. */
  private async timed<K extends OperationName>(spec: OperationSpec, request: SentRequestOf<K>, options: CallOptions, sent: Sent): Promise<AnswerOf<K>> {
    const operation = spec.name as K;
    const started = performance.now();
    const done = (outcome: 'success' | ApiError['code'], status?: number): void =>
      this.observer.onResponse?.({ operation, outcome, durationMs: performance.now() - started, ...(status === undefined ? {} : { status }) });
    try {
      const { url, body } = this.target(spec, request, options.path);
      // Read as the request goes out, not when it was queued: a token swapped meanwhile is the one to send.
      sent.token = this.token;
      const result = await attempt({
        operation, method: spec.method, url, body,
        headers: this.headers(spec, sent.token),
        dispatcher: this.dispatcher,
        timeoutMs: this.settings.timeoutMs,
        maxBodyBytes: this.settings.maxBodyBytes,
        signal: options.signal,
        ...this.proxyOf(url),
      });
      const parsed = operationSchemas[operation].answer.safeParse(result.json);
      if (!parsed.success) {
        const where = parsed.error.issues.slice(0, 3).map((i) => `${i.path.map(String).join('.') || '(body)'}: ${i.message}`);
        throw new BadResponseError(`${operation}: response does not match the documented shape: ${where.join('; ')}`, {
          operation, status: result.status, cause: parsed.error,
        });
      }
      done('success', result.status);
      return parsed.data as AnswerOf<K>;
    } catch (err) {
      if (err instanceof ApiError) done(err.code, err.status);
      throw err;
    }
  }

  private proxyOf(url: string): { proxy?: string; proxySecrets?: readonly string[] } {
    const proxy = this.proxy === undefined ? undefined : proxyFor(this.proxy, url);
    if (proxy === undefined) return {};
    let shown = this.proxyShown.get(proxy);
    if (shown === undefined) {
      shown = { proxy: maskUrl(proxy), proxySecrets: proxyCredentials(proxy) };
      this.proxyShown.set(proxy, shown);
    }
    return shown;
  }

  private target(spec: OperationSpec, request: unknown, path: string | undefined): { url: string; body: string | undefined } {
    const base = spec.host === 'login' ? this.loginUrl : this.settings.apiUrl;
    const template = path ?? this.paths[spec.name] ?? spec.path;
    const params = spec.method === 'GET' && typeof request === 'object' && request !== null ? stringValues(request) : {};
    const url = joinUrl(base, expandPath(template, params));
    return { url, body: spec.method === 'POST' ? JSON.stringify(request) : undefined };
  }

  private headers(spec: OperationSpec, token: string): Record<string, string> {
    const bearer = spec.host === 'login' || this.settings.authScheme === 'bearer';
    return {
      'content-type': 'application/json',
      accept: 'application/json',
      authorization: bearer ? `Bearer ${token}` : token,
    };
  }

  readonly describeLogV2: Method<'describeLogV2'> = (r, o) => this.call('describeLogV2', r, o);
  readonly batchUpdateDomainCertInfo: Method<'batchUpdateDomainCertInfo'> = (r, o) => this.call('batchUpdateDomainCertInfo', r, o);
  readonly getPackages: Method<'getPackages'> = (r, o) => this.call('getPackages', r, o);
  readonly describeL7UsageData: Method<'describeL7UsageData'> = (r, o) => this.call('describeL7UsageData', r, o);
  readonly describeL7DataV2: Method<'describeL7DataV2'> = (r, o) => this.call('describeL7DataV2', r, o);
  readonly describeL7Data: Method<'describeL7Data'> = (r, o) => this.call('describeL7Data', r, o);
  readonly describeL7MostData: Method<'describeL7MostData'> = (r, o) => this.call('describeL7MostData', r, o);
  readonly describeL7CCAttack: Method<'describeL7CCAttack'> = (r, o) => this.call('describeL7CCAttack', r, o);
  readonly listLayer4Packages: Method<'listLayer4Packages'> = (r, o) => this.call('listLayer4Packages', r, o);
  readonly getPackageDetails: Method<'getPackageDetails'> = (r, o) => this.call('getPackageDetails', r, o);
  readonly insertRule: Method<'insertRule'> = (r, o) => this.call('insertRule', r, o);
  readonly updateRule: Method<'updateRule'> = (r, o) => this.call('updateRule', r, o);
  readonly listDomains: Method<'listDomains'> = (r, o) => this.call('listDomains', r, o);
  readonly describeHosting: Method<'describeHosting'> = (r, o) => this.call('describeHosting', r, o);
  readonly getCacheRecordList: Method<'getCacheRecordList'> = (r, o) => this.call('getCacheRecordList', r, o);
  readonly pushUrlsCache: Method<'pushUrlsCache'> = (r, o) => this.call('pushUrlsCache', r, o);
  readonly createHostAcceleratePackOrder: Method<'createHostAcceleratePackOrder'> = (r, o) => this.call('createHostAcceleratePackOrder', r, o);
  readonly updateHostAcceleratePackOrder: Method<'updateHostAcceleratePackOrder'> = (r, o) => this.call('updateHostAcceleratePackOrder', r, o);
  readonly modifyHostAcceleratePackOrder: Method<'modifyHostAcceleratePackOrder'> = (r, o) => this.call('modifyHostAcceleratePackOrder', r, o);
  readonly describeHostAcceleratePackOrder: Method<'describeHostAcceleratePackOrder'> = (r, o) => this.call('describeHostAcceleratePackOrder', r, o);
  readonly describeVQUserData: Method<'describeVQUserData'> = (r, o) => this.call('describeVQUserData', r, o);
}

/** The token an attempt carried, filled in as it goes out. */
interface Sent {
  token?: string;
}

function stringValues(obj: object): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj)) if (typeof v === 'string' || typeof v === 'number') out[k] = String(v);
  return out;
}

/** Joins a base that may carry a path prefix with an absolute operation path. */
function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + path;
}
