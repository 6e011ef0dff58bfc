import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS, parseRetryAfter } from '../../src/shared/retry-after.js';

const NOW = Date.parse('2026-11-26T12:00:00Z');

describe('parseRetryAfter', () => {
  it.each<[string, string | string[] | undefined, number | undefined]>([
    ['delta-seconds', '7', 7000],
    ['delta-seconds with blanks', ' 2 ', 2000],
    ['zero', '0', 0],
    ['an HTTP date ahead', 'Thu, 26 Nov 2026 12:00:30 GMT', 30_000],
    ['an HTTP date in the past', 'Thu, 26 Nov 2026 11:59:00 GMT', 0],
    ['the first of repeated headers', ['3', '9'], 3000],
    ['absent', undefined, undefined],
    ['empty', '', undefined],
    ['garbage', 'soon', undefined],
    ['a negative number', '-5', undefined],
    ['a fraction', '1.5', undefined],
    ['a bare number with letters', '10s', undefined],
    ['delta-seconds over the cap', '86400', MAX_RETRY_AFTER_MS],
    ['a date over the cap', 'Fri, 27 Nov 2026 12:00:00 GMT', MAX_RETRY_AFTER_MS],
  ])('%s', (_name, value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });

  it('applies a cap given by the caller', () => {
    expect(parseRetryAfter('60', NOW, 10_000)).toBe(10_000);
  });
});
