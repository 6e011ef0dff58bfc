// One mapping, two encodings: the requests the sink sends for the same events
// over http/protobuf (its own serializer, from the records encoded into the
// arena) and over http/json (the SDK's JSON serializer, from the records
// toReadableLogRecord builds) decode to the same records, field by field, by a
// decoder of the official schema apart from both (test/support/otlp-decode.ts).
// Both write record.ts's mapping (recordFields, recordAttributes) and nothing
// else of an event, so neither can map a field otherwise than the other.
import { JsonLogsSerializer } from '@opentelemetry/otlp-transformer';
import { describe, expect, it } from 'vitest';
import type { LogEvent } from '../../../src/forwarder/log-sink.js';
import { createLogsSerializer } from '../../../src/exporters/otel-logs/otlp-serializer.js';
import { SCOPE_NAME, buildResource } from '../../../src/exporters/otel-logs/pipeline.js';
import { ATTR_LOG_RECORD_UID, instrumentationScope } from '../../../src/exporters/otel-logs/record.js';
import { RecordBatch } from '../../../src/exporters/otel-logs/sink-batch.js';
import { createLogsDecoder } from '../../support/otlp-decode.js';
import { MANY_ATTRIBUTES, RESOURCE, batchOf, denyEvent, simulatorWafEvents } from './fixtures.js';

const resource = buildResource({ ...RESOURCE, attributes: { 'deployment.environment.name': 'prod' } });
const scope = instrumentationScope(SCOPE_NAME, RESOURCE.serviceVersion);
const decode = createLogsDecoder();

/**
 * What OTLP/JSON can carry too: no NaN or infinity (JSON has none). Nor what
 * the SDK's own protobuf and JSON encoders write differently, whatever the
 * record: a time before 1970 (no WAF event's) and an integer from 2^63 up
 * (an int64 in its JSON, a double in its protobuf).
 */
const EDGE_CASES: LogEvent[] = [
  denyEvent(1),
  denyEvent(2, { severity: 'UNSPECIFIED', severityText: '', body: '', eventName: '' }),
  denyEvent(3, { severity: 'WARN', attributes: { [ATTR_LOG_RECORD_UID]: 'not-this-one', 'edge.empty': '', 'edge.list': [], '': 'dropped', 'edge.neg': -5, 'edge.big': 2 ** 60 } }),
  denyEvent(4, { severity: 'INFO', attributes: MANY_ATTRIBUTES }),
  denyEvent(5, { body: 'WAF denied GET /login — 高风险', attributes: { 'edge.emoji': 'näive 🚀 ĳ', 'edge.list': ['a', 'β', 'c'], 'edge.ratio': 0.25, 'edge.off': false, 'edge.min': -(2 ** 63) } }),
  denyEvent(6, { timestampMs: 1_750_000_000_123.456, observedMs: 999.999_999_9 }),
  denyEvent(7, { timestampMs: 2 ** 32 / 1e6, observedMs: 8_000_000_000_000 }),
];

function protobufRecords(events: readonly LogEvent[]): ReturnType<typeof decode> {
  const serializer = createLogsSerializer(resource, scope);
  return decode('protobuf', serializer.serializeRequest(batchOf(serializer, events)) ?? new Uint8Array());
}

function jsonRecords(events: readonly LogEvent[]): ReturnType<typeof decode> {
  return decode('json', JsonLogsSerializer.serializeRequest(batchOf({ batch: () => new RecordBatch(resource, scope) }, events).records) ?? new Uint8Array());
}

describe('the two encodings of one event', () => {
  it.each([
    ['an hour of simulator WAF events', simulatorWafEvents()],
    ['edge cases: empty texts, a uid attribute, an empty key, more attributes than the limit, odd values and times', EDGE_CASES],
  ])('decode to the same records for %s', (_what, events) => {
    const records = protobufRecords(events);
    expect(records).toHaveLength(events.length);
    expect(jsonRecords(events)).toEqual(records);
    // What the comparison rests on: the records carry the events, not two empty requests alike.
    expect(records.map((r) => r.attributes[ATTR_LOG_RECORD_UID])).toEqual(events.map((e) => e.uid));
    expect(records.map((r) => r.body)).toEqual(events.map((e) => e.body));
  });
});
