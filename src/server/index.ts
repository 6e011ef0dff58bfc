// The HTTP server: /metrics, /healthz, /readyz and the landing page.
export { HttpServer, acceptsGzip, type HttpServerOptions, type ServerCredentials, type TlsPair } from './server.js';
export type { MetricsSource, CollectorRunStatus, ExpositionFormat, ReloadOutcome } from './types.js';
