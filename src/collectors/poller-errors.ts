// How the poller and discovery describe a failure: a stable code plus the
// operation and status for upstream errors, as structured log fields and as
// plain data for the landing page and self-metrics. Log lines never carry an
// upstream error's message text (fixed messages, fields for the rest).
import { isApiError } from '../api/errors.js';
import { isStateError } from '../state/store.js';
import type { RunError } from './types.js';

/** Code of an error that is a bug or unknown (not from the client or the state store). */
export const COLLECTOR_ERROR_CODE = 'EDGE_COLLECTOR';

export function describeError(err: unknown): RunError {
  if (isApiError(err)) {
    return { code: err.code, message: err.message, operation: err.operation, ...(err.status === undefined ? {} : { status: err.status }) };
  }
  if (isStateError(err)) return { code: err.code, message: err.message };
  if (err instanceof Error) {
    const code = 'code' in err && typeof err.code === 'string' ? err.code : COLLECTOR_ERROR_CODE;
    return { code, message: err.message };
  }
  return { code: COLLECTOR_ERROR_CODE, message: String(err) };
}

/**
 * Structured log fields. Upstream errors give code, operation, status and the
 * envelope code only; other errors (bugs, state) keep their message, which
 * the logger still scrubs of the token.
 */
export function errorFields(err: unknown): Record<string, unknown> {
  if (isApiError(err)) {
    return {
      code: err.code,
      operation: err.operation,
      ...(err.status === undefined ? {} : { status: err.status }),
      ...(err.upstreamCode === undefined ? {} : { upstreamCode: err.upstreamCode }),
    };
  }
  const { code, message } = describeError(err);
  return { code, error: message };
}

/** 401/403: retrying on schedule continues, but the operator has to act. */
export function isCredentialError(err: unknown): boolean {
  return isApiError(err) && (err.code === 'EDGE_AUTH' || err.code === 'EDGE_PERMISSION');
}

/** The fixed log message for a failed run or request. */
export function failureMessage(err: unknown, what: string): string {
  return isCredentialError(err) ? `${what} failed: token may be invalid / lacks permission` : `${what} failed`;
}
