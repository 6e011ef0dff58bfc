// Log events shaped like the WAF collector's, and a sink factory for tests against the OTLP receiver.
import { wafLogRecord } from '../../../src/api/schemas/waf-log.js';
import type { LogBatch, LogEvent } from '../../../src/forwarder/log-sink.js';
import { headerPolicy, toLogEvent } from '../../../src/forwarder/convert.js';
import { ATTRIBUTE_COUNT_LIMIT } from '../../../src/exporters/otel-logs/record.js';
import { createSimulator } from '../../../src/simulator/index.js';
import { OtlpLogSink } from '../../../src/exporters/otel-logs/index.js';
import { type OtlpLogSinkOptions } from '../../../src/exporters/otel-logs/options.js';
import { directEndpoint } from '../../../src/outbound/index.js';

export const RESOURCE = {
  serviceName: 'edge-exporter',
  serviceVersion: '0.1.0-test',
  serviceInstanceId: 'test-instance-1',
} as const;

/** A deny event; `i` makes the uid and timestamps distinct. */
export function denyEvent(i: number, overrides: Partial<LogEvent> = {}): LogEvent {
  return {
    uid: `req-${String(i).padStart(4, '0')}`,
    timestampMs: 1_750_000_000_123 + i * 1000,
    observedMs: 1_750_000_090_456 + i,
    severity: 'ERROR',
    severityText: '高风险',
    eventName: 'edge.waf.deny',
    body: `GET /login?id=${i} from 203.0.113.7 denied: SQL injection`,
    attributes: {
      'http.request.method': 'GET',
      'url.path': '/login',
      'url.query': `id=${i}`,
      'http.response.status_code': 403,
      'client.address': '203.0.113.7',
      'server.port': 443,
      'security_rule.id': '100001',
      'edge.waf.rule_ids': ['100001', '100002'],
      'edge.waf.blocked': true,
      'edge.waf.score': 0.75,
    },
    ...overrides,
  };
}

export function denyEvents(from: number, count: number): LogEvent[] {
  return Array.from({ length: count }, (_, k) => denyEvent(from + k));
}

/** A new batch of `sink`'s holding `events`, added as the forwarder adds them. */
export function batchOf<B extends LogBatch>(sink: { batch(): B }, events: readonly LogEvent[]): B {
  const batch = sink.batch();
  for (const event of events) batch.add(event);
  return batch;
}

/** A started sink against `endpoint`, small time budgets so failure tests stay fast. */
export async function startedSink(endpoint: string, options: Partial<OtlpLogSinkOptions> = {}): Promise<OtlpLogSink> {
  const sink = new OtlpLogSink({ endpoint: directEndpoint('otlp', endpoint), resource: RESOURCE, timeoutMs: 5_000, ackMarginMs: 1_000, ...options });
  await sink.start();
  return sink;
}

/** Polls until `check` holds (bounded); for states reached by another party's I/O. */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** An hour of the simulator's WAF events, converted as the forwarder converts them, read 5 min (and half a ms) after its end. */
export function simulatorWafEvents(): LogEvent[] {
  const t0 = Date.UTC(2026, 2, 2, 4, 0, 0);
  const sim = createSimulator({ clock: { mode: 'fixed', start: t0 }, domains: 6 });
  const policy = headerPolicy();
  return sim.truth.wafEvents(t0 - 3_600_000, t0).map((e) => toLogEvent(wafLogRecord.parse(e.record), t0 + 5 * 60_000 + 0.5, policy, 480));
}

/** More attributes than the SDK's count limit, strings and integers. */
export const MANY_ATTRIBUTES = Object.fromEntries(Array.from({ length: ATTRIBUTE_COUNT_LIMIT + 5 }, (_, i) => [`edge.test.a${i}`, i % 3 === 0 ? `v${i}` : i]));
