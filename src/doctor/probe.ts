// Every request of a doctor run goes through one Prober: it refuses write
// operations outright (the doctor is read-only whatever a check asks for),
// stops sending the moment the upstream refuses the token (401/403: nothing
// is sent after that answer), and turns the deadline into "not reached"
// instead of an error. Answers are values, never exceptions, so one failed
// probe costs only the checks that needed it.
import { AuthError, OPERATIONS, PermissionError, isApiError, type ApiError, type OperationName, type ReadOperationName } from '../api/index.js';
import type { ReadClient, RequestOf, AnswerOf } from '../api/index.js';
import type { Logger } from '../log/logger.js';
import { EdgeError } from '../shared/errors.js';

export type Answer<T> =
  | { readonly kind: 'answer'; readonly value: T; /** Our clock when the request was sent. */ readonly sentAt: number }
  | { readonly kind: 'failed'; readonly error: ApiError }
  | { readonly kind: 'not_reached'; readonly reason: string };

interface ProberOptions {
  readonly client: ReadClient;
  readonly now: () => number;
  /** The caller's signal (SIGTERM) and the run's deadline, together. */
  readonly signal: AbortSignal;
  readonly deadlineMs: number;
  readonly log: Logger;
}

/** Thrown (and caught by the runner) when a check asks for a write operation: a bug, never a request. */
class WriteRefusedError extends EdgeError {
  readonly code = 'EDGE_DOCTOR_WRITE';
}

/** How the calls of one operation at its configured path went. */
export interface OperationTally {
  answered: number;
  /** The first failure, if any. */
  failure?: ApiError;
}

export class Prober {
  private readonly stop = new AbortController();
  private readonly signal: AbortSignal;
  private refusedBy: ApiError | undefined;
  private sentCount = 0;
  private answeredCount = 0;
  private readonly tallies = new Map<OperationName, OperationTally>();

  constructor(private readonly options: ProberOptions) {
    this.signal = AbortSignal.any([options.signal, this.stop.signal]);
  }

  /** The 401/403 that stopped the run, if any. */
  get refusal(): ApiError | undefined {
    return this.refusedBy;
  }

  get sent(): number {
    return this.sentCount;
  }

  /** Requests that got a successful answer. */
  get answered(): number {
    return this.answeredCount;
  }

  now(): number {
    return this.options.now();
  }

  /** Per operation asked at its configured path (path probes try other spellings and are judged apart). */
  operations(): ReadonlyMap<OperationName, Readonly<OperationTally>> {
    return this.tallies;
  }

  async ask<K extends ReadOperationName>(operation: K, request: RequestOf<K>, path?: string): Promise<Answer<AnswerOf<K>>> {
    // The type admits reads only; this stops a write that a cast slipped past it, before anything is counted or sent.
    if (OPERATIONS[operation].write) throw new WriteRefusedError(`the doctor never sends ${operation} (a write operation)`);
    const skipped = this.skipReason();
    if (skipped !== undefined) return { kind: 'not_reached', reason: skipped };
    const sentAt = this.options.now();
    this.sentCount++;
    try {
      const value = await this.options.client[operation](request, { signal: this.signal, ...(path === undefined ? {} : { path }) });
      this.answeredCount++;
      if (path === undefined) this.tally(operation).answered++;
      this.options.log.debug({ operation, path }, 'doctor: answered');
      return { kind: 'answer', value, sentAt };
    } catch (err) {
      // Aborted by the deadline or by a refusal elsewhere: whatever the error says, the probe was cut short.
      const cut = this.skipReason();
      if (cut !== undefined && !(err instanceof AuthError || err instanceof PermissionError)) return { kind: 'not_reached', reason: cut };
      if (!isApiError(err)) throw err;
      this.options.log.debug({ operation, path, code: err.code, status: err.status }, 'doctor: failed');
      if (path === undefined) this.tally(operation).failure ??= err;
      if (err instanceof AuthError || err instanceof PermissionError) {
        this.refusedBy ??= err;
        this.stop.abort(err);
      }
      return { kind: 'failed', error: err };
    }
  }

  private tally(operation: OperationName): OperationTally {
    let t = this.tallies.get(operation);
    if (!t) this.tallies.set(operation, (t = { answered: 0 }));
    return t;
  }

  private skipReason(): string | undefined {
    if (this.refusedBy) return `not reached: stopped after HTTP ${this.refusedBy.status ?? '401/403'} from ${this.refusedBy.operation}`;
    if (this.options.signal.aborted) {
      const timedOut = this.options.signal.reason instanceof DOMException && this.options.signal.reason.name === 'TimeoutError';
      return timedOut ? `not reached within the ${Math.round(this.options.deadlineMs / 1000)} s deadline` : 'not reached: interrupted';
    }
    return undefined;
  }
}

/** The answer's value, or undefined. */
export function valueOf<T>(answer: Answer<T> | undefined): T | undefined {
  return answer?.kind === 'answer' ? answer.value : undefined;
}

/** A short account of an answer that is not a value: the error's code and message, or why it was not sent. */
export function whyNot(answer: Answer<unknown> | undefined): string {
  if (answer === undefined) return 'not asked';
  if (answer.kind === 'not_reached') return answer.reason;
  if (answer.kind === 'failed') return `${answer.error.code}: ${answer.error.message}`;
  return 'answered';
}
