// late_revision: whether a bucket still changes after the daemon counted it
// shows only over time, which a run of under a minute does not have. The
// daemon's audit measures it continuously instead.
import { seconds } from '../collectors/contract/checks.js';
import type { DoctorSetup } from './setup.js';
import { unknownResult, type CheckResult } from './types.js';

export function judgeLateRevision(setup: DoctorSetup): CheckResult {
  const audit = setup.audit.every === 0
    ? 'the audit is off (collectors.defaults.audit.every: 0): turn it on to measure it'
    : `the audit (collectors.defaults.audit) re-reads counted buckets every ${seconds(setup.audit.every)} over the last ${seconds(setup.audit.lookback)} and counts changes as late_revision`;
  return unknownResult('late_revision', `cannot be measured within a minute; ${audit}`,
    'if it counts revisions, raise collectors.defaults.delay past the age at which buckets still change.');
}
