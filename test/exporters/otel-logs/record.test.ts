import { SeverityNumber } from '@opentelemetry/api-logs';
import { describe, expect, it } from 'vitest';
import type { LogEvent } from '../../../src/forwarder/log-sink.js';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import {
  ATTR_LOG_RECORD_UID, SEVERITY_NUMBERS, instrumentationScope, msToHrTime, toReadableLogRecord,
} from '../../../src/exporters/otel-logs/record.js';
import { SCOPE_NAME, buildResource } from '../../../src/exporters/otel-logs/pipeline.js';
import { RESOURCE, denyEvent } from './fixtures.js';

const RESOURCE_BUILT = buildResource(RESOURCE);
const SCOPE = instrumentationScope(SCOPE_NAME, RESOURCE.serviceVersion);

/** The record the sink exports for one event. */
function toRecord(event: LogEvent): ReadableLogRecord {
  return toReadableLogRecord(event, RESOURCE_BUILT, SCOPE);
}

describe('toReadableLogRecord', () => {
  const event = denyEvent(7);
  const record = toRecord(event);

  it.each([
    ['hrTime', [1_750_000_007, 123_000_000]],
    ['hrTimeObserved', [1_750_000_090, 463_000_000]],
    ['severityNumber', SeverityNumber.ERROR],
    ['severityText', '高风险'],
    ['eventName', 'edge.waf.deny'],
    ['body', 'GET /login?id=7 from 203.0.113.7 denied: SQL injection'],
  ] as const)('maps %s', (field, expected) => {
    expect(record[field]).toEqual(expected);
  });

  it('puts log.record.uid first, then every event attribute unchanged', () => {
    expect(Object.keys(record.attributes)[0]).toBe(ATTR_LOG_RECORD_UID);
    expect(record.attributes).toEqual({ [ATTR_LOG_RECORD_UID]: 'req-0007', ...event.attributes });
    expect(record.droppedAttributesCount).toBe(0);
  });

  it('lets the uid win over a log.record.uid attribute', () => {
    const clash = toRecord(denyEvent(1, { attributes: { [ATTR_LOG_RECORD_UID]: 'other', 'url.path': '/' } }));
    expect(clash.attributes).toEqual({ [ATTR_LOG_RECORD_UID]: 'req-0001', 'url.path': '/' });
  });

  it('sets no deprecated event.name attribute and no trace context; carries the resource and scope given', () => {
    expect(record.attributes).not.toHaveProperty('event.name');
    expect(record.spanContext).toBeUndefined();
    expect(record.resource).toBe(RESOURCE_BUILT);
    expect(record.instrumentationScope).toBe(SCOPE);
  });

  it.each([
    ['ERROR', 17],
    ['WARN', 13],
    ['INFO', 9],
    ['UNSPECIFIED', 0],
  ] as const)('severity %s -> %i', (severity: LogEvent['severity'], number) => {
    expect(SEVERITY_NUMBERS[severity]).toBe(number);
    expect(toRecord(denyEvent(1, { severity })).severityNumber).toBe(number);
  });
});

describe('msToHrTime', () => {
  it.each([
    [0, [0, 0]],
    [1, [0, 1_000_000]],
    [999, [0, 999_000_000]],
    [1_750_000_000_123, [1_750_000_000, 123_000_000]],
    // Below performance.timeOrigin / 2: a plain number would be read as a performance.now() offset.
    [631_152_000_000, [631_152_000, 0]],
    [1.5, [0, 1_500_000]],
    [-1, [-1, 999_000_000]],
  ] as const)('%d ms -> %j', (ms, expected) => {
    expect(msToHrTime(ms)).toEqual(expected);
  });
});
