// LogEvent -> OTLP LogRecord: the one mapping, pure, no SDK state (the forwarder already chose the attribute
// names). Both encodings write a record from it and from nothing else of the event: the SDK's record
// (toReadableLogRecord: http/json, a test's exporter) and the protobuf message (record-message.ts: http/protobuf),
// so the two cannot tell an event differently (encodings.test.ts decodes both and compares them).
import type { HrTime } from '@opentelemetry/api';
import { SeverityNumber, type AnyValue, type LogAttributes } from '@opentelemetry/api-logs';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { LogEvent } from '../../forwarder/index.js';

/**
 * The record's unique id (semantic conventions, `log.record.uid`). Copied
 * rather than imported: it lives in the incubating entry point, which the
 * semconv package asks users not to depend on.
 */
export const ATTR_LOG_RECORD_UID = 'log.record.uid';

/** LogEvent.severity -> the base number of each OTel severity range. */
export const SEVERITY_NUMBERS: Readonly<Record<LogEvent['severity'], SeverityNumber>> = {
  ERROR: SeverityNumber.ERROR, // 17
  WARN: SeverityNumber.WARN, // 13
  INFO: SeverityNumber.INFO, // 9
  UNSPECIFIED: SeverityNumber.UNSPECIFIED, // 0
};

const NANOS_PER_MS = 1_000_000;

/**
 * Epoch ms -> [seconds, nanoseconds]. An HrTime is passed instead of the
 * number because the SDK reads a number below performance.timeOrigin / 2
 * (about 1994) as a performance.now() offset, and rounds through a float.
 */
export function msToHrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  const nanos = Math.round((ms - seconds * 1000) * NANOS_PER_MS);
  return nanos >= 1e9 ? [seconds + 1, nanos - 1e9] : [seconds, nanos];
}

/** The SDK's default attribute-count limit (LoggerProvider logRecordLimits), which the records keep. */
export const ATTRIBUTE_COUNT_LIMIT = 128;

/**
 * The semantic-conventions release whose attribute names the records and the
 * resource use (src/forwarder/attributes.ts): the version of the
 * installed @opentelemetry/semantic-conventions, which is generated from that
 * release. Set on the resource and the scope so a backend can translate the
 * names when the conventions move on; raise it with the package, after
 * checking the names (test/exporters/otel-logs/schema-url.test.ts compares).
 */
export const SEMCONV_SCHEMA_URL = 'https://opentelemetry.io/schemas/1.45.0';

/** The instrumentation scope as the SDK's LoggerProvider.getLogger(name, version, { schemaUrl }) builds it. */
export function instrumentationScope(name: string, version: string): ReadableLogRecord['instrumentationScope'] {
  return { name, version, schemaUrl: SEMCONV_SCHEMA_URL };
}

/** The LogRecord's fields but its attributes, in the SDK's types. */
interface RecordFields {
  readonly hrTime: HrTime;
  readonly hrTimeObserved: HrTime;
  readonly severityNumber: SeverityNumber;
  readonly severityText: string;
  readonly body: string;
  readonly eventName: string;
}

/** `event`'s LogRecord, every field but the attributes (recordAttributes gives those), as the SDK's Logger.emit fills it. */
export function recordFields(event: LogEvent): RecordFields {
  return {
    hrTime: msToHrTime(event.timestampMs),
    hrTimeObserved: msToHrTime(event.observedMs),
    severityNumber: SEVERITY_NUMBERS[event.severity],
    severityText: event.severityText,
    body: event.body,
    eventName: event.eventName,
  };
}

type AttributeValue = LogEvent['attributes'][string];

/**
 * `event`'s LogRecord attributes, each handed to `put` in order, as the SDK's
 * Logger.emit keeps them: `log.record.uid` first (so an attribute-count limit
 * never drops it, and it always equals `event.uid`), then the event's own in
 * their order, an empty key and a second uid left out, at most
 * ATTRIBUTE_COUNT_LIMIT in all. Returns how many the limit dropped.
 */
export function recordAttributes(event: LogEvent, put: (key: string, value: AttributeValue) => void): number {
  put(ATTR_LOG_RECORD_UID, event.uid);
  let count = 1;
  let dropped = 0;
  const source = event.attributes;
  for (const key in source) {
    if (key === ATTR_LOG_RECORD_UID || key === '' || !Object.hasOwn(source, key)) continue;
    if (count >= ATTRIBUTE_COUNT_LIMIT) {
      dropped++;
      continue;
    }
    put(key, source[key] as AttributeValue);
    count++;
  }
  return dropped;
}

/**
 * What the SDK's Logger.emit hands its processors for `event`'s LogRecord,
 * built without the emit. The OTLP exporter encodes it exactly as it encodes
 * the SDK's own records (test/exporters/otel-logs/readable.test.ts compares
 * the bytes). Handed to the SDK's http/json exporter (and a test's
 * exporter). Arrays are shared with the event, not copied: the exporter
 * reads them once, while it serializes the batch.
 */
export function toReadableLogRecord(event: LogEvent, resource: Resource, scope: ReadableLogRecord['instrumentationScope']): ReadableLogRecord {
  const attributes: LogAttributes = {};
  const droppedAttributesCount = recordAttributes(event, (key, value) => {
    attributes[key] = value as AnyValue;
  });
  return { ...recordFields(event), spanContext: undefined, resource, instrumentationScope: scope, attributes, droppedAttributesCount };
}
