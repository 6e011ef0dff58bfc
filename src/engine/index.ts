// The engine runs every job on one schedule and lifecycle: each collector's
// cycles as a sample job (sample-job/), the WAF event forwarder as an
// event-stream job. It knows no family. This is the surface the exporters
// (what it reports) and the daemon (the scheduler, the jobs) see.
export type * from './reports.js';
export { DEFAULT_STOP_TIMEOUT_MS, Scheduler } from './scheduler.js';
export type { Job, JobRun } from './job.js';
export { scheduleOf } from './schedule.js';
export { sampleJobs, type PolledCollector } from './sample-job/job.js';
export { budgetProblem, estimateRequests, type RequestEstimate } from './requests.js';
