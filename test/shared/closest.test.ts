// The one "did you mean" rule (config keys, commands, operations, options).
import { describe, expect, it } from 'vitest';
import { closest } from '../../src/shared/closest.js';

const OPTIONS = ['config', 'listen', 'web.config.file', 'once'];

describe('closest', () => {
  it.each([
    ['intervl', ['enabled', 'interval', 'schedule'], 'interval'],
    ['tiemout', ['timeout', 'retry'], 'timeout'],
    ['retries', ['retry', 'timeout', 'paths'], 'retry'],
    ['listDomain', ['listDomains', 'getPackages'], 'listDomains'],
    ['GETPACKAGES', ['listDomains', 'getPackages'], 'getPackages'],
    ['entry', ['entries', 'retry'], 'entries'],
    ['onc', OPTIONS, 'once'],
    ['web-config-file', OPTIONS, 'web.config.file'],
  ])('%s among %j is %s', (word, candidates, expected) => {
    expect(closest(word, candidates)).toBe(expected);
  });

  it.each([
    ['retries', OPTIONS],
    ['frobnicate', ['listDomains', 'getPackages']],
    ['x', []],
  ])('%s among %j: none near enough', (word, candidates) => {
    expect(closest(word, candidates)).toBeUndefined();
  });
});
