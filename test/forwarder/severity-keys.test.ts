// Found by the property tests (test/property/waf-events-convert): the
// severity table was a plain object indexed by the upstream's text, so a
// severityLevel of "__proto__" or "constructor" found Object.prototype or
// Object and put it in the event as its severity.
import { describe, expect, it } from 'vitest';
import { wafLogRecord } from '../../src/api/schemas/waf-log.js';
import { toLogEvent } from '../../src/forwarder/convert.js';

const record = (severityLevel: string) => wafLogRecord.parse({
  oid: 'o', requestId: 'r', wafId: 1, clientIp: '203.0.113.9', hostPort: 443, timeStamp: '2026-03-02T04:00:00Z', severityLevel,
  response: { httpCode: 417 }, request: { method: 'GET', uri: '/' }, rules: [],
});

describe('toLogEvent severity for any severityLevel text', () => {
  it.each([
    ['高风险', 'ERROR'], ['中风险', 'WARN'], ['低风险', 'INFO'],
    ['__proto__', 'UNSPECIFIED'], ['constructor', 'UNSPECIFIED'], ['toString', 'UNSPECIFIED'], ['hasOwnProperty', 'UNSPECIFIED'], ['critical', 'UNSPECIFIED'],
  ])('%s -> %s, the text kept as severityText', (level, severity) => {
    const event = toLogEvent(record(level), 0);
    expect(event.severity).toBe(severity);
    expect(event.severityText).toBe(level);
  });
});
