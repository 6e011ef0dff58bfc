// The HTTP server: /metrics, /healthz, /readyz and the landing page.
export { HttpServer, acceptsGzip, type HttpServerOptions } from './server.js';
export type { MetricsSource, StatusSource, CollectorRunStatus, ExpositionFormat, RenderedMetrics } from './types.js';
export { escapeHtml } from './landing.js';
