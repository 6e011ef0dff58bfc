// Contracts inside the simulator: the router turns an HTTP request into a
// SimRequest (after auth, permission, rate-limit and fault checks) and a
// handler answers it with a status and a JSON body.
import type { OperationName } from '../api/operations.js';

export interface SimRequest {
  readonly operation: OperationName;
  /** Parsed JSON body (POST) or `{}` (GET). */
  readonly body: unknown;
  /** Path parameters, e.g. `{ oid }` for getPackageDetails. */
  readonly pathParams: Readonly<Record<string, string>>;
  /** The token the caller authenticated with. */
  readonly token: string;
  /** Simulator time (epoch ms) at which the request is handled. */
  readonly now: number;
}

export interface SimResponse {
  readonly status: number;
  readonly body: unknown;
}

export type Handler = (req: SimRequest) => SimResponse;
export type HandlerTable = Partial<Record<OperationName, Handler>>;

/** The documented envelope. */
export function ok(extra: Record<string, unknown> = {}): SimResponse {
  return { status: 200, body: { msg: '操作成功', code: 200, ...extra } };
}

export function fail(status: number, code: number, msg: string): SimResponse {
  return { status, body: { msg, code } };
}
