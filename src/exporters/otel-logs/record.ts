// LogEvent -> OTel LogRecord: a pure mapping, no SDK state (the collector already chose the attribute names).
import type { HrTime } from '@opentelemetry/api';
import { SeverityNumber, type AnyValueMap, type LogRecord } from '@opentelemetry/api-logs';
import type { LogEvent } from '../../collectors/types.js';

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

/**
 * The record the Logger emits for one event. `log.record.uid` comes first, so
 * it is never the attribute an attribute-count limit drops (the confirming
 * exporter acknowledges by it), and it always equals `event.uid`.
 */
export function toLogRecord(event: LogEvent): LogRecord {
  const attributes: AnyValueMap = { [ATTR_LOG_RECORD_UID]: event.uid };
  for (const [key, value] of Object.entries(event.attributes)) {
    if (key === ATTR_LOG_RECORD_UID) continue;
    // Copy arrays: the SDK keeps the object, and the event's array is readonly.
    attributes[key] = typeof value === 'object' ? [...value] : value;
  }
  return {
    timestamp: msToHrTime(event.timestampMs),
    observedTimestamp: msToHrTime(event.observedMs),
    severityNumber: SEVERITY_NUMBERS[event.severity],
    severityText: event.severityText,
    // The LogRecord's own event-name field (OTLP LogRecord.event_name), not the deprecated `event.name` attribute.
    eventName: event.eventName,
    body: event.body,
    attributes,
  };
}
