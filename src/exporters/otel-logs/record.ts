// LogEvent -> OTel LogRecord: a pure mapping, no SDK state (the collector already chose the attribute names).
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

/**
 * What the SDK's Logger.emit hands its processors for each event's LogRecord,
 * built for a whole batch without the emit: the same fields, the same
 * attribute order (`log.record.uid` first, so an attribute-count limit never
 * drops it, and it always equals `event.uid`) and the same limits (at most
 * ATTRIBUTE_COUNT_LIMIT attributes, the rest counted as dropped; an empty
 * key dropped). The OTLP exporter encodes these exactly as it encodes the
 * SDK's own records (test/exporters/otel-logs/readable.test.ts compares the
 * bytes). Handed to the SDK's http/json exporter (and a test's exporter);
 * the http/protobuf serializer writes the same request from the events
 * without them (record-message.ts; otlp-serializer.test.ts compares it with
 * the SDK's encoding of these). Arrays are shared with the event, not
 * copied: the exporter reads them once, while it serializes the batch.
 */
export function toReadableLogRecords(events: readonly LogEvent[], resource: Resource, scope: ReadableLogRecord['instrumentationScope']): ReadableLogRecord[] {
  const records = new Array<ReadableLogRecord>(events.length);
  for (let i = 0; i < events.length; i++) {
    const event = events[i] as LogEvent;
    const attributes: LogAttributes = { [ATTR_LOG_RECORD_UID]: event.uid };
    let count = 1;
    let dropped = 0;
    const source = event.attributes;
    for (const key in source) {
      if (key === ATTR_LOG_RECORD_UID || key === '' || !Object.prototype.hasOwnProperty.call(source, key)) continue;
      if (count >= ATTRIBUTE_COUNT_LIMIT) {
        dropped++;
        continue;
      }
      attributes[key] = source[key] as AnyValue;
      count++;
    }
    records[i] = {
      hrTime: msToHrTime(event.timestampMs),
      hrTimeObserved: msToHrTime(event.observedMs),
      spanContext: undefined,
      severityText: event.severityText,
      severityNumber: SEVERITY_NUMBERS[event.severity],
      body: event.body,
      eventName: event.eventName,
      resource,
      instrumentationScope: scope,
      attributes,
      droppedAttributesCount: dropped,
    };
  }
  return records;
}
