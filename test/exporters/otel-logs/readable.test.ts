// The sink builds its batches' records itself (toReadableLogRecord: for
// http/json, and the reference the http/protobuf serializer is held to in
// otlp-serializer.test.ts) instead of emitting each event through the SDK's
// Logger: the OTLP exporter must get the very bytes it got before. Reference: the SDK's LoggerProvider with the
// sink's former settings, each event emitted as the LogRecord the sink's
// former mapping built (emittedRecord, kept here as the reference); compared:
// the OTLP request both serializers (protobuf, JSON) make of each set.
import { ExportResultCode } from '@opentelemetry/core';
import { JsonLogsSerializer, ProtobufLogsSerializer } from '@opentelemetry/otlp-transformer';
import type { AnyValueMap, LogRecord } from '@opentelemetry/api-logs';
import { LoggerProvider, SimpleLogRecordProcessor, type ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { describe, expect, it } from 'vitest';
import type { LogEvent } from '../../../src/forwarder/log-sink.js';
import {
  ATTR_LOG_RECORD_UID, SEMCONV_SCHEMA_URL, SEVERITY_NUMBERS, instrumentationScope, msToHrTime, toReadableLogRecord,
} from '../../../src/exporters/otel-logs/record.js';
import { SCOPE_NAME, buildResource } from '../../../src/exporters/otel-logs/pipeline.js';
import { RESOURCE, MANY_ATTRIBUTES, denyEvent, simulatorWafEvents } from './fixtures.js';

const WAF_EVENTS = simulatorWafEvents();
const many = MANY_ATTRIBUTES;
const EDGE_CASES: LogEvent[] = [
  denyEvent(1),
  denyEvent(2, { severity: 'UNSPECIFIED', severityText: '', body: '' }),
  denyEvent(3, { attributes: { [ATTR_LOG_RECORD_UID]: 'not-this-one', 'edge.empty': '', 'edge.list': [], '': 'dropped', 'edge.neg': -5, 'edge.big': 2 ** 60 } }),
  denyEvent(4, { attributes: many }),
  denyEvent(5, { attributes: { ...many, [ATTR_LOG_RECORD_UID]: 'x' } }),
];

/** The LogRecord the sink's former pipeline emitted for one event: the uid first, then the event's attributes. */
function emittedRecord(event: LogEvent): LogRecord {
  const attributes: AnyValueMap = { [ATTR_LOG_RECORD_UID]: event.uid };
  for (const [key, value] of Object.entries(event.attributes)) {
    if (key === ATTR_LOG_RECORD_UID) continue;
    attributes[key] = typeof value === 'object' ? [...value] : value;
  }
  return {
    timestamp: msToHrTime(event.timestampMs),
    observedTimestamp: msToHrTime(event.observedMs),
    severityNumber: SEVERITY_NUMBERS[event.severity],
    severityText: event.severityText,
    eventName: event.eventName,
    body: event.body,
    attributes,
  };
}

/** What the sink's former pipeline handed its exporter for these events. */
function emittedBySdk(events: readonly LogEvent[]): ReadableLogRecord[] {
  const captured: ReadableLogRecord[] = [];
  const provider = new LoggerProvider({
    resource: buildResource(RESOURCE),
    processors: [new SimpleLogRecordProcessor({
      exporter: {
        export: (records, done) => {
          captured.push(...records);
          done({ code: ExportResultCode.SUCCESS });
        },
        forceFlush: () => Promise.resolve(),
        shutdown: () => Promise.resolve(),
      },
    })],
    logRecordLimits: { attributeCountLimit: 128 },
  });
  const logger = provider.getLogger(SCOPE_NAME, RESOURCE.serviceVersion, { schemaUrl: SEMCONV_SCHEMA_URL });
  for (const event of events) logger.emit(emittedRecord(event));
  return captured;
}

const built = (events: readonly LogEvent[]): ReadableLogRecord[] => {
  const resource = buildResource(RESOURCE);
  const scope = instrumentationScope(SCOPE_NAME, RESOURCE.serviceVersion);
  return events.map((event) => toReadableLogRecord(event, resource, scope));
};

describe('toReadableLogRecord', () => {
  it.each([
    ['an hour of simulator WAF events', WAF_EVENTS],
    ['edge cases: empty texts, a uid attribute, an empty key, more attributes than the limit', EDGE_CASES],
  ])('serializes %s to the same OTLP bytes as the SDK’s emitted records', (_what, events) => {
    expect(events.length).toBeGreaterThan(0);
    const reference = emittedBySdk(events);
    const ours = built(events);
    expect(Buffer.from(ProtobufLogsSerializer.serializeRequest(ours) ?? [])).toEqual(Buffer.from(ProtobufLogsSerializer.serializeRequest(reference) ?? []));
    expect(Buffer.from(JsonLogsSerializer.serializeRequest(ours) ?? []).toString()).toBe(Buffer.from(JsonLogsSerializer.serializeRequest(reference) ?? []).toString());
  });

  it('keeps the SDK’s fields and limits record by record', () => {
    const reference = emittedBySdk(EDGE_CASES);
    const ours = built(EDGE_CASES);
    ours.forEach((record, i) => {
      const sdk = reference[i];
      expect(Object.keys(record.attributes)).toEqual(Object.keys(sdk?.attributes ?? {}));
      expect(record.attributes).toEqual(sdk?.attributes);
      expect(record.droppedAttributesCount).toBe(sdk?.droppedAttributesCount);
      expect([record.hrTime, record.hrTimeObserved, record.severityNumber, record.severityText, record.body, record.eventName])
        .toEqual([sdk?.hrTime, sdk?.hrTimeObserved, sdk?.severityNumber, sdk?.severityText, sdk?.body, sdk?.eventName]);
      expect(record.instrumentationScope).toEqual(sdk?.instrumentationScope);
    });
    expect(ours[3]?.droppedAttributesCount).toBe(6);
  });
});
