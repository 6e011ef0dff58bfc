// operations: does every read operation the enabled collectors use answer at
// its configured path, in the documented shape? The statistics and WAF
// probes of the other checks count too; this file adds one small request for
// each operation no other check asks (the inventory's other lists, top-N, CC).
import {
  BadResponseError, BodyTooLargeError, NotFoundError, UpstreamError, ValidationError, type ApiError, type OperationName,
} from '../api/index.js';
import type { Prober, OperationTally } from './probe.js';
import type { DoctorSetup } from './setup.js';
import { paramsOf } from './requests.js';
import { combine, type CheckResult, type Part } from './types.js';
import { HOUR_MS } from '../api/time.js';


/** One request per operation the other checks do not send; all read-only, one page each. */
export async function gatherOperations(prober: Prober, setup: DoctorSetup): Promise<void> {
  const now = prober.now();
  const lastHour = paramsOf(setup.requestTz, { begin: now - HOUR_MS, end: now });
  const asks: Array<Promise<unknown>> = [];
  if (setup.inventory) {
    asks.push(
      prober.ask('describeHosting', { pageNum: 1, pageSize: 10 }),
      prober.ask('getCacheRecordList', { type: '1', pageNum: 1, pageSize: 10, params: lastHour }),
      prober.ask('describeHostAcceleratePackOrder', { pageNum: 1, pageSize: 10 }),
      prober.ask('describeVQUserData', { pageNum: 1, pageSize: 10 }),
    );
  }
  if (setup.topn) {
    const { interval, dimension, by } = setup.topn;
    asks.push(prober.ask('describeL7MostData', {
      action: [{ metricName: dimension }], domains: [], interval, pageNum: 1, pageSize: 10, params: lastHour, mostDimension: by, otherFilter: [],
    }));
  }
  if (setup.ccAttack) {
    asks.push(prober.ask('describeL7CCAttack', { action: [{ metricName: 'ccPolicyTrend' }], domains: [], interval: setup.ccAttack.interval, params: lastHour }));
  }
  await Promise.all(asks);
}

/** A failure config or the upstream's data explains (differs), as against one that may pass (unknown). */
function lasting(error: ApiError): boolean {
  return error instanceof NotFoundError || error instanceof UpstreamError || error instanceof BadResponseError
    || error instanceof BodyTooLargeError || error instanceof ValidationError;
}

function failurePart(operation: OperationName, error: ApiError): Part {
  // A 404's message already says whether to look at upstream.paths (api/transport.ts).
  return { verdict: lasting(error) ? 'differs' : 'unknown', observed: `${operation}: ${error.code}: ${error.message}` };
}

export function judgeOperations(tallies: ReadonlyMap<OperationName, Readonly<OperationTally>>): CheckResult {
  const answered = [...tallies].filter(([, t]) => t.answered > 0).map(([op]) => op);
  const parts: Part[] = [];
  if (answered.length > 0) parts.push({ verdict: 'ok', observed: `${answered.length} answer: ${answered.join(', ')}` });
  // A lasting failure counts even when another request of the operation answered: it was that request's shape or range.
  for (const [operation, t] of tallies) {
    if (t.failure && (t.answered === 0 || lasting(t.failure))) parts.push(failurePart(operation, t.failure));
  }
  return combine('operations', parts);
}
