// One error tree for everything the client can throw, under the project's one
// base (shared/errors.ts). Every error has a stable `code` that callers
// (collectors, the CLI) match on, and keeps its `cause`.
import { EdgeError } from '../shared/errors.js';
import type { OperationName } from './operations.js';

export type ApiErrorCode =
  | 'EDGE_VALIDATION'
  | 'EDGE_AUTH'
  | 'EDGE_PERMISSION'
  | 'EDGE_NOT_FOUND'
  | 'EDGE_UPSTREAM'
  | 'EDGE_RATE_LIMITED'
  | 'EDGE_HTTP'
  | 'EDGE_BAD_RESPONSE'
  | 'EDGE_BODY_TOO_LARGE'
  | 'EDGE_TIMEOUT'
  | 'EDGE_NETWORK'
  | 'EDGE_ABORTED';

interface ApiErrorDetails {
  operation: OperationName;
  status?: number;
  /** The envelope `code`, when the body had one. */
  upstreamCode?: number;
  /** The envelope `msg` (business messages are often Chinese), when the body had one; the request's credentials masked (transport.ts). */
  upstreamMsg?: string;
  /** The wait a 429 or 503 asked for in Retry-After, ms (capped, retry-after.ts); undefined when it named none. */
  retryAfterMs?: number;
  cause?: unknown;
}

export abstract class ApiError extends EdgeError {
  abstract override readonly code: ApiErrorCode;
  readonly operation: OperationName;
  readonly status: number | undefined;
  readonly upstreamCode: number | undefined;
  readonly upstreamMsg: string | undefined;
  readonly retryAfterMs: number | undefined;
  /** Whether repeating the same read could succeed. */
  abstract readonly retryable: boolean;

  constructor(message: string, details: ApiErrorDetails) {
    super(message, { cause: details.cause });
    this.operation = details.operation;
    this.status = details.status;
    this.upstreamCode = details.upstreamCode;
    this.upstreamMsg = details.upstreamMsg;
    this.retryAfterMs = details.retryAfterMs;
  }

  /** Code, operation, status and the envelope code only: the upstream's own text stays out of the log. */
  override logFields(): Record<string, unknown> {
    return {
      code: this.code,
      operation: this.operation,
      ...(this.status === undefined ? {} : { status: this.status }),
      ...(this.upstreamCode === undefined ? {} : { upstreamCode: this.upstreamCode }),
    };
  }
}

export interface ValidationIssue {
  /** Dotted path of the offending request field, e.g. `action.0.metricName`. */
  path: string;
  message: string;
}

/** The request was rejected locally; nothing was sent. */
export class ValidationError extends ApiError {
  readonly code = 'EDGE_VALIDATION';
  readonly retryable = false;
  readonly issues: readonly ValidationIssue[];
  constructor(operation: OperationName, issues: readonly ValidationIssue[]) {
    super(
      `${operation}: invalid request: ${issues.map((i) => `${i.path || '(body)'}: ${i.message}`).join('; ')}`,
      { operation },
    );
    this.issues = issues;
  }
}

/** HTTP 401: missing or invalid token. */
export class AuthError extends ApiError {
  readonly code = 'EDGE_AUTH';
  readonly retryable = false;
}

/** HTTP 403: authenticated but lacking a permission label. */
export class PermissionError extends ApiError {
  readonly code = 'EDGE_PERMISSION';
  readonly retryable = false;
}

/**
 * HTTP 404: an unknown resource, or a wrong path (check the path override).
 * The upstream's own answer tells them apart (docs/upstream-notes.md,
 * "Errors and envelopes"): a body in its error format, envelope code and msg,
 * says the path is served and what is missing; anything else comes from
 * whatever serves the paths, so the path or base URL is wrong.
 */
export class NotFoundError extends ApiError {
  readonly code = 'EDGE_NOT_FOUND';
  readonly retryable = false;
}

/** HTTP 429 / the documented per-user limit on order operations. */
export class RateLimitedError extends ApiError {
  readonly code = 'EDGE_RATE_LIMITED';
  readonly retryable = true;
}

/** The envelope's `code` was not 200: a business error with the upstream's msg. */
export class UpstreamError extends ApiError {
  readonly code = 'EDGE_UPSTREAM';
  readonly retryable = false;
}

/** Any other non-2xx HTTP status; 5xx is retryable. */
export class HttpError extends ApiError {
  readonly code = 'EDGE_HTTP';
  get retryable(): boolean {
    return (this.status ?? 0) >= 500;
  }
}

/** Body was not JSON or not of the documented shape. */
export class BadResponseError extends ApiError {
  readonly code = 'EDGE_BAD_RESPONSE';
  readonly retryable = true;
}

export class BodyTooLargeError extends ApiError {
  readonly code = 'EDGE_BODY_TOO_LARGE';
  readonly retryable = false;
}

export class TimeoutError extends ApiError {
  readonly code = 'EDGE_TIMEOUT';
  readonly retryable = true;
}

/** Where a connection failed and why, for a person (see outbound/net-cause.ts). */
interface NetworkDetails {
  /** host:port tried; never credentials. */
  readonly address?: string;
  /** errno or TLS code (ECONNREFUSED, ENOTFOUND, SELF_SIGNED_CERT_IN_CHAIN...), or PROXY_REFUSED. */
  readonly reason?: string;
  /** The proxy in use, its credentials masked. */
  readonly proxy?: string;
  /** The proxy's status when it refused. */
  readonly proxyStatus?: number;
  /** The one setting to look at. */
  readonly hint?: string;
}

/** Connection refused/reset, DNS failure, untrusted certificate, a proxy's refusal and similar transport errors. */
export class NetworkError extends ApiError {
  readonly code = 'EDGE_NETWORK';
  readonly retryable = true;
  readonly address: string | undefined;
  readonly reason: string | undefined;
  readonly proxy: string | undefined;
  readonly proxyStatus: number | undefined;
  readonly hint: string | undefined;

  constructor(message: string, details: ApiErrorDetails & NetworkDetails) {
    super(message, details);
    this.address = details.address;
    this.reason = details.reason;
    this.proxy = details.proxy;
    this.proxyStatus = details.proxyStatus;
    this.hint = details.hint;
  }

  /** Where and why the connection failed, and the one hint (the message says the same for the status page). */
  override logFields(): Record<string, unknown> {
    const fields = { address: this.address, reason: this.reason, proxy: this.proxy, proxyStatus: this.proxyStatus, hint: this.hint };
    return { ...super.logFields(), ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) };
  }
}

/** The caller's AbortSignal fired (shutdown). */
export class AbortedError extends ApiError {
  readonly code = 'EDGE_ABORTED';
  readonly retryable = false;
}

export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}
