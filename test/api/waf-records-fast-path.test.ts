// The `logs` list of describeLogV2 hands records already in their output form
// on as parsed (src/api/schemas/waf-log.ts); every answer must still read
// exactly as the plain schema, list(wafLogRecord), reads it: the same data,
// or the same issues and message.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { envelope, list, looseInt, point } from '../../src/api/schemas/common.js';
import { describeLogV2Answer, wafLogRecord } from '../../src/api/schemas/waf-log.js';
import { runs, wire } from '../property/hostile.js';
import { outsideBodies } from '../property/outside.js';
import { logsBody } from '../property/waf-records.js';

const plain = envelope.extend({
  data: list(z.looseObject({ metricName: z.string(), list: list(wafLogRecord), objectArrayList: list(point), count: looseInt.optional() })),
});
const outcome = (schema: z.ZodType, body: unknown) => {
  const r = schema.safeParse(body);
  return r.success ? { data: r.data } : { issues: r.error.issues, message: r.error.message };
};
const jsonOf = (bytes: string | Uint8Array): unknown => {
  try {
    return JSON.parse(typeof bytes === 'string' ? bytes : Buffer.from(bytes).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
};

const record = {
  oid: 'o-1', requestId: 'r-1', wafId: 'w-1', clientIp: '203.0.113.9', hostPort: 443, timeStamp: '2026-03-02T04:00:00+08:00',
  severityLevel: '高风险', ua: { name: 'curl' }, geoip: null, response: { httpCode: 417 },
  request: { method: 'GET', uri: '/a?b=1', headers: { Host: 'a.example', accept: ['*/*', 1] } },
  rules: [{ ruleId: '942100', ruleMessage: 'SQLi', group: 'attack-sqli', severity: 'CRITICAL', severityLevel: '高风险', match: { x: 1 } }],
  extra: { kept: true },
};
const body = (r: unknown): unknown => ({ code: 200, msg: 'ok', data: [{ metricName: 'logs', list: [record, r] }] });

describe('describeLogV2 records fast path', () => {
  it.each([
    ['as sent', record],
    ['wafId a number', { ...record, wafId: 7 }],
    ['hostPort a numeric string', { ...record, hostPort: '8080' }],
    ['hostPort not an integer', { ...record, hostPort: 1.5 }],
    ['httpCode a string', { ...record, response: { httpCode: '417' } }],
    ['rules null', { ...record, rules: null }],
    ['rules missing', { ...record, rules: undefined }],
    ['a ruleId as a number', { ...record, rules: [{ ...record.rules[0], ruleId: 942100 }] }],
    ['a rule without group', { ...record, rules: [{ ...record.rules[0], group: undefined }] }],
    ['headers an array', { ...record, request: { ...record.request, headers: ['x'] } }],
    ['headers null', { ...record, request: { ...record.request, headers: null } }],
    ['ua a string', { ...record, ua: 'curl' }],
    ['geoip missing', { ...record, geoip: undefined }],
    ['requestId missing', { ...record, requestId: undefined }],
    ['method a number', { ...record, request: { ...record.request, method: 1 } }],
    ['not an object', 'record'],
    ['an array', [record]],
  ])('reads a page with a record %s as the plain schema does', (_, r) => {
    const answer = wire(body(r));
    expect(outcome(describeLogV2Answer, answer)).toStrictEqual(outcome(plain, answer));
  });

  it('keeps the parsed records of a page already in output form instead of copying them', () => {
    const answer = wire(body(record)) as { data: [{ list: unknown[] }] };
    const parsed = describeLogV2Answer.parse(answer);
    expect(parsed.data[0]?.list).toBe(answer.data[0].list);
  });

  it('reads any answer, inside or outside the documented shape, as the plain schema does', () => {
    fc.assert(
      fc.property(fc.oneof(logsBody.map(wire), outsideBodies(logsBody).map(jsonOf)), (answer) => {
        expect(outcome(describeLogV2Answer, answer)).toStrictEqual(outcome(plain, answer));
      }),
      runs(400),
    );
  });
});
