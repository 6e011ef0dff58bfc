// How the engine's jobs and discovery describe a failure: a stable code plus the
// operation and status for upstream errors, as structured log fields and as
// plain data for the landing page and self-metrics. Log lines never carry an
// upstream error's message text (fixed messages, fields for the rest).
import { isApiError, NetworkError } from '../../api/errors.js';
import { isStateError } from '../../state/store.js';
import type { RunError } from '../engine/reports.js';

/** Code of an error that is a bug or unknown (not from the client or the state store). */
const COLLECTOR_ERROR_CODE = 'EDGE_COLLECTOR';

/**
 * A collector whose every request failed throws them together as an
 * AggregateError (series/collect.ts), which has no code of its own: the first
 * failure stands for the run, so the operator sees EDGE_AUTH or EDGE_TIMEOUT
 * rather than a generic code.
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
  if (isApiError(err)) {
    return { code: err.code, message: err.message, operation: err.operation, ...(err.status === undefined ? {} : { status: err.status }), ...where(err) };
  }
  if (isStateError(err)) return { code: err.code, message: err.message };
  if (err instanceof Error) {
    const code = 'code' in err && typeof err.code === 'string' ? err.code : COLLECTOR_ERROR_CODE;
    return { code, message: err.message, ...where(err) };
  }
  return { code: COLLECTOR_ERROR_CODE, message: String(err) };
}

/** The address and hint an error carries (a NetworkError, a DeliveryError), for the status page's row. */
function where(err: Error): Pick<RunError, 'address' | 'hint'> {
  const { address, hint } = err as { address?: unknown; hint?: unknown };
  return { ...(typeof address === 'string' ? { address } : {}), ...(typeof hint === 'string' ? { hint } : {}) };
}

/**
 * Structured log fields. Upstream errors give code, operation, status and the
 * envelope code only; other errors (bugs, state) keep their message, which
 * the logger still scrubs of the token.
 */
export function errorFields(err: unknown): Record<string, unknown> {
  const first = firstOf(err);
  if (first !== err && err instanceof AggregateError) return { ...errorFields(first), failures: err.errors.length };
  if (isApiError(err)) {
    return {
      code: err.code,
      operation: err.operation,
      ...(err.status === undefined ? {} : { status: err.status }),
      ...(err.upstreamCode === undefined ? {} : { upstreamCode: err.upstreamCode }),
      ...(err instanceof NetworkError ? networkFields(err) : {}),
    };
  }
  const { code, message } = describeError(err);
  return { code, error: message };
}

/** Where and why a connection failed, and the one hint (the message says the same for the landing page). */
function networkFields(err: NetworkError): Record<string, unknown> {
  const fields = { address: err.address, reason: err.reason, proxy: err.proxy, proxyStatus: err.proxyStatus, hint: err.hint };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

/** 401/403: retrying on schedule continues, but the operator has to act. */
function isCredentialError(err: unknown): boolean {
  const first = firstOf(err);
  return isApiError(first) && (first.code === 'EDGE_AUTH' || first.code === 'EDGE_PERMISSION');
}

/** The fixed log message for a failed run or request. */
export function failureMessage(err: unknown, what: string): string {
  return isCredentialError(err) ? `${what} failed: token may be invalid / lacks permission` : `${what} failed`;
}
