import { describe, expect, it } from 'vitest';
import { OPERATIONS, OPERATION_NAMES, expandPath } from '../../src/api/operations.js';

describe('operations table', () => {
  it('lists the 21 documented operations, numbered 1..21 in order', () => {
    expect(OPERATION_NAMES.map((n) => OPERATIONS[n].no)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
  });
  it('marks exactly the documented write operations (2, 11, 12, 16, 17, 18, 19)', () => {
    const writes = OPERATION_NAMES.filter((n) => OPERATIONS[n].write).map((n) => OPERATIONS[n].no);
    expect(writes).toEqual([2, 11, 12, 16, 17, 18, 19]);
  });
  it('rate-limits exactly the order operations the document limits (17-20)', () => {
    expect(OPERATION_NAMES.filter((n) => OPERATIONS[n].rateLimited).map((n) => OPERATIONS[n].no)).toEqual([17, 18, 19, 20]);
  });
  it('uses GET only for getPackages and getPackageDetails, and the login host only for WAF logs', () => {
    expect(OPERATION_NAMES.filter((n) => OPERATIONS[n].method === 'GET')).toEqual(['getPackages', 'getPackageDetails']);
    expect(OPERATION_NAMES.filter((n) => OPERATIONS[n].host === 'login')).toEqual(['describeLogV2']);
  });
  it('has one distinct path per operation', () => {
    expect(new Set(OPERATION_NAMES.map((n) => OPERATIONS[n].path)).size).toBe(21);
  });
});

describe('expandPath', () => {
  it('encodes path parameters', () => {
    expect(expandPath('/x/{oid}', { oid: 'a/b c' })).toBe('/x/a%2Fb%20c');
  });
  it('refuses a missing parameter', () => {
    expect(() => expandPath('/x/{oid}', {})).toThrow(/oid/);
  });
});
