// What the HTTP server needs from the rest of the daemon, as narrow
// interfaces: it renders nothing itself and never calls the upstream.

export type ExpositionFormat = 'text' | 'openmetrics';

export interface RenderedMetrics {
  /** The whole body; may be assembled on access, so the server prefers `chunks`. */
  readonly body: Buffer;
  /** The same bytes in cached pieces, written without copying them into one buffer. */
  readonly chunks?: readonly Buffer[];
  readonly byteLength?: number;
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

/** The daemon's one status: the landing page shows it and /readyz answers from it. */
export interface DaemonStatus {
  /** Where the daemon is in its life: 'starting', 'running', 'reloading', 'stopping', ... */
  readonly state: string;
  /** What /readyz answers: a first successful cycle (or no collector to wait for) while running or reloading. */
  readonly ready: boolean;
  readonly collectors: readonly CollectorRunStatus[];
  /** Lines shown above the table: warnings (certificate checks off) and the outbound clients' last connection failures. */
  readonly notices: readonly string[];
}

export interface StatusSource {
  status(): DaemonStatus;
}

/** What a reload answered: applied, or refused with the reason (the config stays as it was). */
export type ReloadOutcome = { readonly ok: true } | { readonly ok: false; readonly message: string };

/** POST /-/reload, when the config in force enables it (server.enable_reload). */
export interface ReloadSource {
  enabled(): boolean;
  reload(): Promise<ReloadOutcome>;
}
