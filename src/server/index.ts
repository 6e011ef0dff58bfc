// The HTTP server: /metrics, /healthz, /readyz and the landing page.
export { HttpServer, type ServerCredentials, type TlsPair } from './server.js';
export type { AccountStatus, DaemonStatus, JobError, JobStatus, MetricsSource, ReloadOutcome, ReloadStatus } from './types.js';
