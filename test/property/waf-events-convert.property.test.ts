// WAF deny events (describeLogV2 `logs` -> LogEvent): any record the client
// accepts converts without throwing, into attributes of the types OTel log
// attributes allow here (strings, finite numbers, booleans, string arrays for
// header values), and no credential header ever leaves, whatever the
// configured allow-list says.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { DescribeLogV2Answer } from '../../src/api/index.js';
import { describeLogV2Answer, wafLogRecord } from '../../src/api/schemas/waf-log.js';
import { headerPolicy, toLogEvent } from '../../src/forwarder/convert.js';
import { logsRequest } from '../../src/forwarder/fetch.js';
import type { LogEvent } from '../../src/forwarder/log-sink.js';
import { DEFAULT_FORWARDED_HEADERS, NEVER_FORWARDED_HEADERS } from '../../src/config/sections/waf-events.js';
import { runs, wire } from './hostile.js';
import { outsideBodies } from './outside.js';
import { T0, tz } from './series-cycles.js';
import { BODY_ERROR_CODES, WireClient } from './through-client.js';
import { SECRET, logsBody, wafRecord } from './waf-records.js';

const OBSERVED = T0 + 60_000;
/** Allow-lists as a config might hold them, credential names included (the policy must drop them). */
const allowList = fc.subarray([...DEFAULT_FORWARDED_HEADERS, 'authorization', 'Cookie', 'Proxy-Authorization', 'set-cookie', 'X-Api-Key', 'x-custom']);

function expectSafeEvent(event: LogEvent, requestId: string): void {
  expect(event.uid).toBe(requestId);
  expect(Number.isFinite(event.timestampMs)).toBe(true);
  expect(event.observedMs).toBe(OBSERVED);
  expect(['ERROR', 'WARN', 'INFO', 'UNSPECIFIED']).toContain(event.severity);
  expect(['edge.waf.deny', 'edge.waf.pass']).toContain(event.eventName);
  expect(typeof event.body).toBe('string');
  for (const [name, value] of Object.entries(event.attributes)) {
    if (Array.isArray(value)) {
      expect(name.startsWith('http.request.header.'), `${name} is a header to be an array`).toBe(true);
      for (const v of value) expect(typeof v).toBe('string');
    } else {
      expect(['string', 'number', 'boolean'], name).toContain(typeof value);
      if (typeof value === 'number') expect(Number.isFinite(value), name).toBe(true);
    }
  }
  for (const header of NEVER_FORWARDED_HEADERS) expect(Object.keys(event.attributes)).not.toContain(`http.request.header.${header}`);
  expect(JSON.stringify(event)).not.toContain(SECRET);
}

describe('waf-events: records inside the documented shape', () => {
  it('convert without throwing into safe, well-typed events', () => {
    fc.assert(
      fc.property(wafRecord, allowList, (raw, allow) => {
        const parsed = wafLogRecord.safeParse(wire(raw));
        expect(parsed.error?.issues ?? []).toEqual([]);
        if (!parsed.success) return;
        expectSafeEvent(toLogEvent(parsed.data, OBSERVED, headerPolicy(allow)), parsed.data.requestId);
      }),
      runs(500),
    );
  });

  it('the generated credentials do reach the conversion (the check above can fail)', () => {
    const record = wafLogRecord.parse({
      oid: 'o', requestId: 'r', wafId: 1, clientIp: '203.0.113.9', hostPort: 443, timeStamp: '2026-03-02T04:00:00Z', severityLevel: '高风险',
      response: { httpCode: 417 }, request: { method: 'GET', uri: '/', headers: { Authorization: SECRET, 'X-Custom': SECRET } }, rules: [],
    });
    const event = toLogEvent(record, OBSERVED, headerPolicy(['authorization', 'x-custom']));
    expect(event.attributes['http.request.header.x-custom']).toEqual([SECRET]);
    expect(event.attributes['http.request.header.authorization']).toBeUndefined();
  });
});

describe('waf-events: answers outside the documented shape', () => {
  const client = new WireClient();
  afterAll(() => client.close());
  const request = logsRequest({ startMs: T0 - 300_000, endMs: T0 }, 1, { pageSize: 100 }, tz);

  it('are rejected with a typed error, or every record converts safely', async () => {
    await fc.assert(
      fc.asyncProperty(outsideBodies(logsBody), allowList, async (body, allow) => {
        const answer = await client.answer('describeLogV2', request, body);
        if (!answer.ok) return void expect([...BODY_ERROR_CODES]).toContain(answer.error.code);
        const logs: DescribeLogV2Answer = answer.value;
        for (const item of logs.data) for (const record of item.list) expectSafeEvent(toLogEvent(record, OBSERVED, headerPolicy(allow)), record.requestId);
      }),
      runs(150),
    );
  });

  it('a whole logs answer parses as the client reads it', () => {
    fc.assert(fc.property(logsBody, (body) => void describeLogV2Answer.parse(wire(body))), runs(100));
  });
});
