// What the HTTP server needs from the rest of the daemon, as narrow
// interfaces: it renders nothing itself and never calls the upstream.

export type ExpositionFormat = 'text' | 'openmetrics';

export interface RenderedMetrics {
  readonly body: Buffer;
  readonly contentType: string;
}

export interface MetricsSource {
  negotiate(accept: string | undefined): ExpositionFormat;
  render(format: ExpositionFormat): Promise<RenderedMetrics>;
  renderGzip(format: ExpositionFormat): Promise<RenderedMetrics>;
}

export interface CollectorRunStatus {
  readonly name: string;
  readonly running: boolean;
  readonly lastRunAt?: number;
  readonly lastSuccessAt?: number;
  readonly lastOutcome?: 'success' | 'error';
  readonly lastError?: { readonly code?: string; readonly message: string };
}

export interface StatusSource {
  status(): readonly CollectorRunStatus[];
}
