// One base for every error the project throws: a stable `code` callers match
// on (undici's style: EDGE_AUTH, EDGE_STATE, EDGE_CONFIG...), the `cause`
// kept, and the fields a log line may carry. Below it the client's tree
// (api/errors.ts) and each room's own errors; above it, how the engine, the
// forwarder and discovery describe a failure as log fields and as plain data
// for the status page and self-metrics. A log line never carries an upstream
// error's message text: fixed messages, fields for the rest.

export abstract class EdgeError extends Error {
  abstract readonly code: string;

  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
  }

  /**
   * The structured log fields of this error, `code` included. The default
   * keeps the message (a bug's or a file's, which the logger still scrubs of
   * secrets); the client's errors give their operation, status and envelope
   * code instead, never the upstream's text.
   */
  logFields(): Record<string, unknown> {
    return { code: this.code, error: this.message };
  }
}

/** Code of an error that is a bug or unknown (none of ours, no code of its own). */
const UNKNOWN_ERROR_CODE = 'EDGE_INTERNAL';

/**
 * A bug: something the code around it rules out happened anyway (a lifecycle
 * step out of order, a value the caller checked missing), or something not an
 * Error was thrown at us. The same code describeError gives a foreign error
 * without one, since either way nobody but a developer can act on it.
 */
export class InternalError extends EdgeError {
  readonly code = UNKNOWN_ERROR_CODE;
}

/**
 * An argument or option a caller got wrong in code (a rate of 0, an index
 * past its count): what RangeError and TypeError say in Node's own API,
 * here under the one base so it carries a code like every other error.
 */
export class ArgumentError extends EdgeError {
  readonly code = 'EDGE_ARGUMENT';
}

function isEdgeError(err: unknown): err is EdgeError {
  return err instanceof EdgeError;
}

/** An error as reported: stable `code` (EDGE_AUTH, EDGE_TIMEOUT, EDGE_STATE, ...), never a secret. */
export interface RunError {
  readonly code: string;
  readonly message: string;
  readonly operation?: string;
  readonly status?: number;
  /** host:port the failed request went to, when the error says (a connection failure, a receiver's refusal). */
  readonly address?: string;
  /** The one setting to look at, when the error names one. */
  readonly hint?: string;
}

/**
 * A collector whose every request failed throws them together as an
 * AggregateError, which has no code of its own: the first failure stands for
 * the run, so the operator sees EDGE_AUTH or EDGE_TIMEOUT rather than a
 * generic code.
 */
function firstOf(err: unknown): unknown {
  return err instanceof AggregateError && err.errors.length > 0 ? firstOf(err.errors[0]) : err;
}

export function describeError(err: unknown): RunError {
  const first = firstOf(err);
  if (first !== err && err instanceof AggregateError) {
    const described = describeError(first);
    return { ...described, message: `${err.message} (${err.errors.length} failures, the first: ${described.message})` };
  }
  if (err instanceof Error) {
    const code = 'code' in err && typeof err.code === 'string' ? err.code : UNKNOWN_ERROR_CODE;
    return { code, message: err.message, ...where(err) };
  }
  return { code: UNKNOWN_ERROR_CODE, message: String(err) };
}

/** The operation, status, address and hint an error carries, for the status page's row. */
function where(err: Error): Pick<RunError, 'operation' | 'status' | 'address' | 'hint'> {
  const { operation, status, address, hint } = err as { operation?: unknown; status?: unknown; address?: unknown; hint?: unknown };
  return {
    ...(typeof operation === 'string' ? { operation } : {}),
    ...(typeof status === 'number' ? { status } : {}),
    ...(typeof address === 'string' ? { address } : {}),
    ...(typeof hint === 'string' ? { hint } : {}),
  };
}

/** Structured log fields: each error's own (`EdgeError.logFields`); a foreign one's code and message. */
export function errorFields(err: unknown): Record<string, unknown> {
  const first = firstOf(err);
  if (first !== err && err instanceof AggregateError) return { ...errorFields(first), failures: err.errors.length };
  if (isEdgeError(err)) return err.logFields();
  const { code, message } = describeError(err);
  return { code, error: message };
}

/** Codes that mean the operator has to act on the credentials: retrying on schedule goes on. */
const CREDENTIAL_CODES = new Set(['EDGE_AUTH', 'EDGE_PERMISSION']);

/** The fixed log message for a failed run or request. */
export function failureMessage(err: unknown, what: string): string {
  const first = firstOf(err);
  return isEdgeError(first) && CREDENTIAL_CODES.has(first.code)
    ? `${what} failed: token may be invalid / lacks permission`
    : `${what} failed`;
}
