// auth: the first request tells whether the token is accepted. A 401 or 403
// on any request stops the run at once (the prober sends nothing after it):
// every further request would be refused the same way, and an operator
// fixing a token needs one clear line, not a table of failures.
import { PermissionError, OPERATIONS, type ApiError } from '../api/index.js';
import { whyNot, type Answer } from './probe.js';
import { combine, type CheckResult } from './types.js';

const TOKEN_KEYS = 'upstream.token, upstream.token_file or EDGE_API_TOKEN';

/** The message printed on its own when the upstream refuses the token (never the token itself). */
function refusalMessage(error: ApiError): string {
  if (error instanceof PermissionError) {
    const label = OPERATIONS[error.operation].permission;
    return `the upstream refused ${error.operation} with HTTP 403: the token is valid but lacks the permission` +
      `${label === undefined ? '' : ` (${label})`}; grant it to the token in ${TOKEN_KEYS}, or disable the collector that needs it`;
  }
  return `the upstream refused ${error.operation} with HTTP 401: the token is missing or invalid; check ${TOKEN_KEYS}`;
}

export function judgeAuth(first: Answer<unknown>, refusal: ApiError | undefined, answered: number): CheckResult {
  if (refusal) {
    // A missing permission is granted upstream, not in config: nothing to set then.
    const set = refusal instanceof PermissionError ? [] : [{ key: 'upstream.token', value: 'a valid token (or upstream.token_file, EDGE_API_TOKEN)' }];
    return combine('auth', [{ verdict: 'differs', observed: `${refusal.code}: ${refusal.message}`, set }], refusalMessage(refusal));
  }
  if (first.kind === 'answer') return combine('auth', [{ verdict: 'ok', observed: 'getPackages answered: the token is accepted' }]);
  if (answered > 0) return combine('auth', [{ verdict: 'ok', observed: `getPackages: ${whyNot(first)}; other operations answered` }]);
  return combine('auth', [{ verdict: 'unknown', observed: `getPackages: ${whyNot(first)}` }]);
}
