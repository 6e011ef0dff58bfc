// OtlpMetricsSender: the push sender with OTLP's encoding, reading the durable history of counted buckets
// and, every `intervalMs`, a snapshot of the families without buckets.
import type { Resource } from '@opentelemetry/resources';
import type { Temporality } from '../../counters/index.js';
import type { FamilyDef, FamilySnapshot } from '../prometheus/serialize.js';
import type { PushSenderOptions } from '../push/options.js';
import { PushSender } from '../push/sender.js';
import type { HistorySource } from '../push/source.js';
import { otlpMetricsProtocol, type OtlpCompression, type OtlpMetricsEncoding } from './protocol.js';
import { SnapshotSource } from './snapshot.js';
import { bothSources } from './sources.js';

interface OtlpMetricsSenderOptions extends PushSenderOptions {
  readonly encoding: OtlpMetricsEncoding;
  /** Default none. */
  readonly compression?: OtlpCompression;
  readonly temporality: Temporality;
  /** How often the families without buckets are pushed. */
  readonly intervalMs: number;
  /** service.*, the shard; the conventions' schema URL. */
  readonly resource: Resource;
  /** Instrumentation scope of every metric (name, version, schema URL). */
  readonly scope: { readonly name: string; readonly version: string; readonly schemaUrl: string };
  /** The definition of a family by name, data and self alike. */
  readonly def: (name: string) => FamilyDef | undefined;
  /** The families without buckets, as /metrics serves them now. */
  readonly snapshot: () => Promise<readonly FamilySnapshot[]>;
  /** Label values cut as /metrics cuts them (limits.label_value_length). */
  readonly maxLabelValueLength: number;
  /** Where the process' own counters start (epoch ms). Default: the process' start. */
  readonly startMs?: number;
  /** A snapshot family's own cumulative start, where its total outlives the process (SnapshotSource). */
  readonly startOf?: (family: string, labels: Readonly<Record<string, string>>) => number | undefined;
}

export class OtlpMetricsSender {
  private readonly snapshots: SnapshotSource;
  private readonly sender: PushSender;
  private timer: NodeJS.Timeout | undefined;

  constructor(history: HistorySource, private readonly options: OtlpMetricsSenderOptions, deps?: ConstructorParameters<typeof PushSender>[3]) {
    const now = deps?.now ?? Date.now;
    this.snapshots = new SnapshotSource({
      families: options.snapshot, temporality: options.temporality, startMs: options.startMs ?? Math.round(performance.timeOrigin), now,
      ...(options.startOf === undefined ? {} : { startOf: options.startOf }),
    });
    const protocol = otlpMetricsProtocol(options.encoding, {
      resource: options.resource, scope: options.scope, temporality: options.temporality, def: options.def, maxLabelValueLength: options.maxLabelValueLength,
    }, options.compression);
    this.sender = new PushSender(bothSources(history, this.snapshots), protocol, options, deps);
  }

  async start(): Promise<void> {
    await this.snapshots.baseline();
    await this.sender.start();
    // The sender's own waits never hold a process up; neither does this timer.
    this.timer ??= setInterval(() => void this.snapshot(), this.options.intervalMs).unref();
  }

  /** Takes a snapshot now and pushes everything pending (PushSender.flush). */
  async flush(signal?: AbortSignal): Promise<void> {
    await this.snapshot();
    await this.sender.flush(signal);
  }

  /** A snapshot that cannot be read (a process metric failing) is logged and skipped: the next interval tries again. */
  private async snapshot(): Promise<void> {
    try {
      await this.snapshots.take();
    } catch (error) {
      this.options.logger?.error({ err: error instanceof Error ? error.message : String(error) }, 'OTLP metrics: reading the snapshot failed; the next interval tries again');
    }
  }

  stop(options?: Parameters<PushSender['stop']>[0]): Promise<void> {
    clearInterval(this.timer);
    return this.sender.stop(options);
  }
}
