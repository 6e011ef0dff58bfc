// State-set conversions: every documented code of every state field becomes
// the right series; an undocumented one becomes state="unknown".
import { describe, expect, it } from 'vitest';
import { describeHostingAnswer } from '../../../src/api/schemas/certificates.js';
import { listDomainsAnswer } from '../../../src/api/schemas/domains.js';
import { describeHostAcceleratePackOrderAnswer } from '../../../src/api/schemas/orders.js';
import { listLayer4PackagesAnswer } from '../../../src/api/schemas/packages.js';
import { certificateStatusCode, convertCertificates } from '../../../src/collectors/inventory/convert-certificates.js';
import { convertDomains } from '../../../src/collectors/inventory/convert-domains.js';
import { convertLiveOrders } from '../../../src/collectors/inventory/convert-live.js';
import { convertLayer4List } from '../../../src/collectors/inventory/convert-packages.js';
import * as M from '../../../src/collectors/inventory/metrics.js';
import { certRow, domainRow, expectedStates, family, l4Row, orderRow, paged, states, tz } from './fixtures.js';

describe('layer-4 package state set (activate)', () => {
  it.each<[unknown, string]>([
    [0, 'pending_payment'], [-1, 'unsubscribed'], [1, 'in_use'], [3, 'closed'], [4, 'configuring'],
    ['-1', 'unsubscribed'], ['4', 'configuring'], [2, M.UNKNOWN_STATE], [99, M.UNKNOWN_STATE],
  ])('activate %j -> %s', (activate, state) => {
    const out = convertLayer4List(listLayer4PackagesAnswer.parse(paged([l4Row({ activate })], 1)).rows, tz);
    expect(states(out, M.L4_PACKAGE_STATE, 'oid', 'L4-1')).toEqual(expectedStates(M.L4_PACKAGE_STATE, state));
    expect(out.issues.length).toBe(state === M.UNKNOWN_STATE ? 1 : 0);
  });
});

describe('domain state set (isActive)', () => {
  it.each<[unknown, string]>([
    ['0', 'configuring'], ['1', 'active'], ['2', 'paused'], [1, 'active'], [2, 'paused'], ['3', M.UNKNOWN_STATE], ['', M.UNKNOWN_STATE],
  ])('isActive %j -> %s', (isActive, state) => {
    const out = convertDomains(listDomainsAnswer.parse(paged([domainRow({ isActive })], 1)).rows, tz);
    expect(states(out, M.DOMAIN_STATE, 'domain', 'www.example.com')).toEqual(expectedStates(M.DOMAIN_STATE, state));
  });
});

describe('certificate status set', () => {
  it.each<[unknown, string]>([
    [0, 'uploaded'], [1, 'pending_verification'], [2, 'processing'], [3, 'issued'], [4, 'verification_failed'],
    ['3', 'issued'], [11, 'pending_verification'], [21, 'pending_verification'], [5, M.UNKNOWN_STATE], [13, M.UNKNOWN_STATE],
  ])('status %j -> %s', (status, state) => {
    const out = convertCertificates(describeHostingAnswer.parse(paged([certRow({ status })], 1)).rows, tz);
    expect(states(out, M.CERTIFICATE_STATUS, 'cert_id', '7001')).toEqual(expectedStates(M.CERTIFICATE_STATUS, state));
  });

  it.each([[1, 1], [11, 1], [31, 1], [13, 13], [-1, -1], [10, 10]])('code %i reads as %i', (code, read) => {
    expect(certificateStatusCode(code)).toBe(read);
  });
});

describe('live order status set', () => {
  it.each<[unknown, string]>([
    [0, 'not_activated'], [1, 'active'], [2, 'expired'], ['2', 'expired'], [3, M.UNKNOWN_STATE],
  ])('status %j -> %s', (status, state) => {
    const out = convertLiveOrders(describeHostAcceleratePackOrderAnswer.parse(paged([orderRow({ status })], 1)).rows, tz);
    expect(states(out, M.LIVE_ORDER_STATUS, 'order_id', '20260302000001')).toEqual(expectedStates(M.LIVE_ORDER_STATUS, state));
    expect(family(out, M.LIVE_ORDER_STATUS).every((s) => s.labels.uid === '1001')).toBe(true);
  });
});
