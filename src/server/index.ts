// The HTTP server: /metrics, /healthz, /readyz and the landing page.
export { HttpServer, acceptsGzip, type HttpServerOptions, type ServerCredentials, type TlsPair } from './server.js';
export type { MetricsSource, StatusSource, DaemonStatus, CollectorRunStatus, ExpositionFormat, RenderedMetrics, ReloadOutcome, ReloadSource } from './types.js';
export { escapeHtml } from './landing.js';
