// The shard section: defaults, EDGE_SHARD_INDEX / EDGE_SHARD_COUNT winning over
// the file (the index also as a StatefulSet pod name), and problems at their
// YAML path or blamed on the variable.
import { describe, expect, it } from 'vitest';
import type { Env } from '../../src/config/env.js';
import { loadConfig } from '../../src/config/load.js';
import { loadError, problemAt, yaml } from './helpers.js';

const SIM = 'simulator: { enabled: true }';
const load = (lines: readonly string[], env: Env = {}) => loadConfig({ text: yaml(SIM, ...lines), env });

describe('shard', () => {
  it('defaults to unsharded', () => {
    expect(load([]).shard).toEqual({ index: 0, count: 1 });
  });

  it.each<[string[], Env, { index: number; count: number }]>([
    [['shard: { index: 2, count: 3 }'], {}, { index: 2, count: 3 }],
    [['shard: { count: 4 }'], {}, { index: 0, count: 4 }],
    [[], { EDGE_SHARD_INDEX: '1', EDGE_SHARD_COUNT: '3' }, { index: 1, count: 3 }],
    [['shard: { index: 0, count: 2 }'], { EDGE_SHARD_INDEX: '4', EDGE_SHARD_COUNT: '5' }, { index: 4, count: 5 }],
    [['shard: { index: 1, count: 3 }'], { EDGE_SHARD_INDEX: '', EDGE_SHARD_COUNT: '' }, { index: 1, count: 3 }],
    // A StatefulSet pod name: its trailing ordinal is the index.
    [['shard: { count: 3 }'], { EDGE_SHARD_INDEX: 'edge-exporter-2' }, { index: 2, count: 3 }],
    [[], { EDGE_SHARD_INDEX: 'edge-exporter-0', EDGE_SHARD_COUNT: '3' }, { index: 0, count: 3 }],
    [[], { EDGE_SHARD_INDEX: 'exporter-v2-11', EDGE_SHARD_COUNT: ' 12 ' }, { index: 11, count: 12 }],
  ])('%j with %j', (lines, env, expected) => {
    expect(load(lines, env).shard).toEqual(expected);
  });

  it('reports an index not below the count at shard.index, with its line', () => {
    const err = loadError({ text: yaml(SIM, 'shard:', '  index: 3', '  count: 3') });
    expect(problemAt(err, 'shard.index')).toMatchObject({ message: 'must be less than shard.count', line: 3, col: 3 });
  });

  it.each<[string, string, RegExp]>([
    ['shard: { index: -1, count: 2 }', 'shard.index', /expected a number >= 0/],
    ['shard: { index: 1.5, count: 2 }', 'shard.index', /expected an integer/],
    ['shard: { index: "two", count: 3 }', 'shard.index', /pod name ending in one/],
    ['shard: { count: 0 }', 'shard.count', /expected a number >= 1/],
    ['shard: { index: 0, count: 2, of: 3 }', 'shard.of', /unknown key/],
  ])('%s: a problem at %s', (line, path, message) => {
    expect(problemAt(loadError({ text: yaml(SIM, line) }), path).message).toMatch(message);
  });

  it.each<[Env, string, string, RegExp]>([
    [{ EDGE_SHARD_INDEX: 'edge-exporter-3', EDGE_SHARD_COUNT: '3' }, 'shard.index', 'EDGE_SHARD_INDEX', /must be less than shard.count/],
    [{ EDGE_SHARD_INDEX: 'edge-exporter' }, 'shard.index', 'EDGE_SHARD_INDEX', /pod name ending in one/],
    [{ EDGE_SHARD_COUNT: 'three' }, 'shard.count', 'EDGE_SHARD_COUNT', /expected a number, got a string/],
  ])('blames a bad override on the variable: %j', (env, path, variable, message) => {
    const problem = problemAt(loadError({ text: yaml(SIM), env }), path);
    expect(problem).toMatchObject({ env: variable });
    expect(problem.message).toMatch(message);
  });
});
