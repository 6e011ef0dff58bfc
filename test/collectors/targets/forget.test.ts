// Which targets are forgotten at time t (the pure decision, table-driven), and
// the forgetter shared by the collectors: absence timed from the first cycle
// that found a held name unlisted, one log line per departure, static lists
// never judged.
import { describe, expect, it } from 'vitest';
import { dueToForget, TargetForgetter } from '../../../src/collectors/targets/forget.js';
import type { CollectorLogger } from '../../../src/collectors/collector.js';
import { targetsSchema } from '../../../src/config/sections/targets.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

function memoryLog(lines: string[] = []): CollectorLogger & { lines: string[] } {
  const at = (obj: object, msg?: string) => void lines.push(`${msg ?? ''} ${JSON.stringify(obj)}`);
  return { lines, debug: at, info: at, warn: at, child: () => memoryLog(lines) };
}

describe('dueToForget', () => {
  it.each([
    ['nothing absent', [], 10 * HOUR, HOUR, []],
    ['absent less than forget_after', [['a', 9 * HOUR + 1]], 10 * HOUR, HOUR, []],
    ['absent exactly forget_after', [['a', 9 * HOUR]], 10 * HOUR, HOUR, ['a']],
    ['absent longer', [['a', 0]], 10 * HOUR, HOUR, ['a']],
    ['only the ones due, sorted', [['c', 0], ['b', 9.5 * HOUR], ['a', 8 * HOUR]], 10 * HOUR, HOUR, ['a', 'c']],
    ['a shorter forget_after', [['a', 9.5 * HOUR], ['b', 10 * HOUR - MIN]], 10 * HOUR, 30 * MIN, ['a']],
  ] as const)('%s', (_name, absent, now, forgetAfter, due) => {
    expect(dueToForget(new Map(absent), now, forgetAfter)).toEqual(due);
  });
});

describe('TargetForgetter', () => {
  const forgetter = (input: unknown, log = memoryLog()) => new TargetForgetter(targetsSchema.parse(input), log);

  it('forgets a held name forget_after after the first judgement that found it unlisted, and logs it once', () => {
    const log = memoryLog();
    const f = forgetter({}, log);
    const held = new Set(['a.com', 'b.com']);
    expect(f.judge('domains', held, ['a.com', 'b.com'], 0)).toEqual([]);
    // b.com leaves at 10m; the clock starts at the first judgement that sees it so.
    expect(f.judge('domains', held, ['a.com'], 10 * MIN)).toEqual([]);
    expect(f.judge('domains', held, ['a.com'], 10 * MIN + HOUR - 1)).toEqual([]);
    expect(f.judge('domains', held, ['a.com'], 10 * MIN + HOUR)).toEqual(['b.com']);
    // Another collector still holding it drops it too, without a second line.
    expect(f.judge('domains', held, ['a.com'], 11 * MIN + HOUR)).toEqual(['b.com']);
    expect(log.lines.filter((l) => l.includes('b.com'))).toHaveLength(1);
    expect(log.lines[0]).toContain('"domain":"b.com"');
  });

  it('a name listed again stops its clock; leaving again starts a new one and a new line', () => {
    const log = memoryLog();
    const f = forgetter({ forget_after: '30m' }, log);
    const held = new Set(['p1']);
    expect(f.judge('packages', held, [], 0)).toEqual([]);
    expect(f.judge('packages', held, ['p1'], 20 * MIN)).toEqual([]);
    expect(f.judge('packages', held, [], 40 * MIN)).toEqual([]);
    expect(f.judge('packages', held, [], 69 * MIN)).toEqual([]);
    expect(f.judge('packages', held, [], 70 * MIN)).toEqual(['p1']);
    expect(f.judge('packages', new Set(), ['p1'], 80 * MIN)).toEqual([]);
    expect(f.judge('packages', held, [], 90 * MIN)).toEqual([]);
    expect(f.judge('packages', held, [], 120 * MIN)).toEqual(['p1']);
    expect(log.lines.filter((l) => l.includes('"package":"p1"'))).toHaveLength(2);
  });

  it('lets go of a departed name no collector holds once it was due a whole forget_after ago', () => {
    const log = memoryLog();
    const f = forgetter({}, log);
    expect(f.judge('domains', new Set(['a']), [], 0)).toEqual([]);
    expect(f.judge('domains', new Set(['a']), [], HOUR)).toEqual(['a']);
    // The collector that dropped it no longer holds it; before 2h the clock is kept, so a slow holder still drops it at once.
    expect(f.judge('domains', new Set(), [], 2 * HOUR - 1)).toEqual([]);
    expect(f.judge('domains', new Set(['a']), [], 2 * HOUR - 1)).toEqual(['a']);
    expect(f.judge('domains', new Set(), [], 2 * HOUR)).toEqual([]);
    // Let go: a holder seen only now starts a new clock, and is logged again when it is due.
    expect(f.judge('domains', new Set(['a']), [], 3 * HOUR)).toEqual([]);
    expect(f.judge('domains', new Set(['a']), [], 4 * HOUR)).toEqual(['a']);
    expect(log.lines.filter((l) => l.includes('"domain":"a"'))).toHaveLength(2);
  });

  it.each([
    ['static domains', { domains: { static: ['a.com'] } }, 'domains'],
    ['static packages', { packages: { static: ['p1'] } }, 'packages'],
  ] as const)('never forgets %s', (_name, input, kind) => {
    const log = memoryLog();
    const f = forgetter(input, log);
    expect(f.judge(kind, new Set(['gone']), [], 0)).toEqual([]);
    expect(f.judge(kind, new Set(['gone']), [], 100 * HOUR)).toEqual([]);
    expect(log.lines).toEqual([]);
  });

  it('judges each kind on its own', () => {
    const f = forgetter({ domains: { static: ['x'] } });
    expect(f.judge('packages', new Set(['x']), [], 0)).toEqual([]);
    expect(f.judge('packages', new Set(['x']), [], HOUR)).toEqual(['x']);
    expect(f.judge('domains', new Set(['x']), [], HOUR)).toEqual([]);
  });
});
