import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/config/duration.js';
import { parseHostPort } from '../../src/config/fields.js';
import { loadError, yaml } from './helpers.js';

describe('parseDuration', () => {
  it.each([
    ['0', 0],
    ['250ms', 250],
    ['15s', 15_000],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['2d', 172_800_000],
    [' 10s ', 10_000],
    ['0.5s', 500],
  ])('%j -> %i', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', 's', '10 s', '1w', '-5s', '5S', '1.s', 'ten'])('%j is not a duration', (text) =>
    expect(parseDuration(text)).toBeUndefined(),
  );
});

describe('parseHostPort', () => {
  it.each([
    ['127.0.0.1:0', { host: '127.0.0.1', port: 0 }],
    ['localhost:9100', { host: 'localhost', port: 9100 }],
    ['[::1]:9400', { host: '::1', port: 9400 }],
    ['0.0.0.0:65535', { host: '0.0.0.0', port: 65_535 }],
  ])('%s', (text, expected) => expect(parseHostPort(text)).toEqual(expected));

  it.each(['9100', ':9100', 'host:', 'host:65536', 'host:port', '::1:9100', 'a b:1'])('%j is rejected', (text) =>
    expect(parseHostPort(text)).toBeUndefined(),
  );
});

describe('YAML edge cases', () => {
  it('rejects an alias bomb without expanding it', () => {
    const bomb = yaml('a: &a [x, x, x, x, x, x, x, x, x, x]', 'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]', 'c: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]');
    expect(loadError({ text: bomb }).problems[0]?.message).toMatch(/YAML syntax error: .*alias/i);
  });

  it('reports a document that is not a mapping', () => {
    expect(loadError({ text: '- a\n- b\n' }).problems).toEqual([{ path: '', message: 'expected a mapping, got a list' }]);
  });
});
