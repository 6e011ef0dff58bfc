// The daemon against an upstream that fails: hanging answers, 5xx storms, a
// token revoked or a permission withdrawn mid-run, bodies that are not JSON
// or stop half way. For each, with a real Daemon on the simulator's pinned
// clock: runOnce resolves, /metrics answers quickly with the last good
// values, the failing collector is down with the error code counted and on
// the landing page, the other collector carries on exactly, and after the
// fault every counter equals the settled truth (back-filled, nothing twice).
import { describe, it } from 'vitest';
import { expectDownAndBack, useRigs, type DownFault } from './fault-rig.js';

const rigs = useRigs();

const FAULTS: readonly DownFault[] = [
  { name: 'hanging answers', rule: { hang: true }, scope: 'access', code: 'EDGE_TIMEOUT', requestOutcome: 'EDGE_TIMEOUT', hangs: true },
  { name: '5xx storm (503)', rule: { status5xx: 503 }, scope: 'access', code: 'EDGE_HTTP', requestOutcome: 'EDGE_HTTP' },
  { name: '5xx storm (random 500/502/503)', rule: { errorRate: 1 }, scope: 'access', code: 'EDGE_HTTP', requestOutcome: 'EDGE_HTTP' },
  { name: '5xx storm on every operation', rule: { status5xx: 502 }, scope: 'all', code: 'EDGE_HTTP', requestOutcome: 'EDGE_HTTP' },
  { name: '401 mid-run', rule: { unauthorized: true }, scope: 'access', code: 'EDGE_AUTH', requestOutcome: 'EDGE_AUTH' },
  { name: '401 on every operation (token revoked)', rule: { unauthorized: true }, scope: 'all', code: 'EDGE_AUTH', requestOutcome: 'EDGE_AUTH' },
  { name: '403 (permission withdrawn)', rule: { forbidden: true }, scope: 'access', code: 'EDGE_PERMISSION', requestOutcome: 'EDGE_PERMISSION' },
  { name: 'malformed JSON', rule: { malformedJson: true }, scope: 'access', code: 'EDGE_BAD_RESPONSE', requestOutcome: 'EDGE_BAD_RESPONSE' },
  { name: 'truncated bodies', rule: { truncatedBody: true }, scope: 'access', code: 'EDGE_NETWORK', requestOutcome: 'EDGE_NETWORK' },
];

describe('upstream faults that take a collector down', () => {
  it.each(FAULTS)('$name: down with $code while it lasts, exact after', async (fault) => {
    await expectDownAndBack(await rigs(), fault);
  }, 30_000);
});
