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

/** A failure as the status page shows it: the stable code, the message, and where and what to look at when known. */
export interface JobError {
  readonly code: string;
  readonly message: string;
  /** host:port the failed request went to. */
  readonly address?: string;
  /** The one setting to look at. */
  readonly hint?: string;
}

/** One job the engine runs, as a row of the status page. */
export interface JobStatus {
  readonly name: string;
  /** A metric collector; the WAF event forwarder; the remote-write sender. */
  readonly kind: 'collector' | 'forwarder' | 'sender';
  readonly running: boolean;
  readonly lastRunAt?: number;
  readonly lastSuccessAt?: number;
  readonly lastOutcome?: 'success' | 'error';
  readonly lastError?: JobError;
  /** Attempts failed in a row, retried in place (a WAF delivery, a remote-write push), and since when. */
  readonly failing?: { readonly since: number; readonly attempts: number };
  /** Seconds behind, as the self-metric says at this moment: data lag, checkpoint lag, or the age of the newest sample pushed. */
  readonly lagSeconds?: number;
  /** The WAF forwarder's delivery audit, when it runs (the self-metrics' values, and the buckets short at its last check). */
  readonly audit?: AuditStatus;
}

/** What the status page says of the WAF delivery audit. */
export interface AuditStatus {
  /** Buckets short at the last check and not final yet (read again while inside the look-back). */
  readonly bucketsShort: number;
  /** edge_exporter_waf_events_missing. */
  readonly missing: number;
  /** edge_exporter_waf_events_recovered_total. */
  readonly recovered: number;
  /** edge_exporter_waf_audit_buckets_total{outcome="unreconciled"}. */
  readonly unreconciled: number;
  /** When the last check was made; undefined before the first. */
  readonly checkedAt?: number;
}

/** The last reload: when, and whether it applied (else why, the previous config still in force). */
export interface ReloadStatus {
  readonly at: number;
  readonly ok: boolean;
  readonly message?: string;
}

/** The daemon's one status: the landing page shows it and /readyz answers from it. */
export interface DaemonStatus {
  /** Where the daemon is in its life: 'starting', 'running', 'reloading', 'stopping', ... */
  readonly state: string;
  /** What /readyz answers: a first successful cycle (or no collector to wait for) while running or reloading. */
  readonly ready: boolean;
  /** Collectors first, then the WAF event forwarder and the remote-write sender when configured. */
  readonly jobs: readonly JobStatus[];
  /** Lines shown above the table: warnings (certificate checks off) and the outbound clients' last connection failures. */
  readonly notices: readonly string[];
  /** Where the collectors read from, credentials masked; undefined before a config is in force. */
  readonly upstream?: string;
  /** Undefined until the first reload. */
  readonly reload?: ReloadStatus;
  /** edge_exporter_contract_mismatches_total, by check. */
  readonly contractMismatches: readonly { readonly check: string; readonly count: number }[];
  /** The WAF forwarder's counters since start (edge_exporter_waf_events_*_total), when it is configured. */
  readonly wafEvents?: WafEventsStatus;
  /**
   * When accounts are named: a section per account (its upstream, jobs,
   * notices, mismatches and WAF events), and the fields above hold only what
   * the accounts share (the push senders' rows, the daemon's notices).
   */
  readonly accounts?: readonly AccountStatus[];
}

/** The WAF forwarder's counters since start (edge_exporter_waf_events_*_total). */
export interface WafEventsStatus {
  readonly read: number;
  readonly deduplicated: number;
  readonly forwarded: number;
  readonly summarized: number;
  readonly exportFailures: number;
}

/** One account's section of the status page. */
export interface AccountStatus {
  readonly name: string;
  /** Where its collectors read from, credentials masked. */
  readonly upstream?: string;
  /** Its collectors, then its WAF event forwarder. */
  readonly jobs: readonly JobStatus[];
  /** Its certificate-check warnings, throttling and OTLP log sink failures. */
  readonly notices: readonly string[];
  readonly contractMismatches: readonly { readonly check: string; readonly count: number }[];
  readonly wafEvents?: WafEventsStatus;
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
