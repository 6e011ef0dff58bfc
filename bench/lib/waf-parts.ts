// What bench/waf.ts and bench/waf-steady.ts give the forwarder besides its
// clock and options: the OTLP sink to the peers' receiver, the upstream client,
// and the daemon's own sample sink. The FamilyStore, not a no-op: every
// checkpoint save publishes the denied counter to it, and a no-op would hide
// what that costs per batch (it grows with the counter's series).
import { EdgeClient } from '../../src/api/index.js';
import { WAF_EVENTS_FAMILIES } from '../../src/forwarder/index.js';
import { limitsSchema } from '../../src/config/sections/limits.js';
import type { otlpSchema } from '../../src/config/sections/waf-events.js';
import { OtlpLogSink } from '../../src/exporters/otel-logs/index.js';
import { directEndpoint } from '../../src/outbound/index.js';
import { FamilyStore } from '../../src/exporters/prometheus/index.js';
import type { z } from 'zod';

export function wafParts(upstream: string, otlp: z.infer<typeof otlpSchema>): { sink: OtlpLogSink; client: EdgeClient; families: FamilyStore } {
  const sink = new OtlpLogSink({
    ...(otlp.endpoint === undefined ? {} : { endpoint: directEndpoint('otlp', otlp.endpoint) }), protocol: otlp.protocol, timeoutMs: otlp.timeout, maxBatch: otlp.max_batch,
    resource: { serviceName: 'edge-exporter', serviceVersion: 'bench', serviceInstanceId: 'bench' },
  });
  const client = new EdgeClient({ apiUrl: upstream, token: 'sim-token', timeoutMs: 30_000 });
  const limits = limitsSchema.parse({});
  const families = new FamilyStore({ maxLabelValueLength: limits.label_value_length, maxSeriesPerFamily: limits.series_per_family });
  families.define(WAF_EVENTS_FAMILIES);
  return { sink, client, families };
}

